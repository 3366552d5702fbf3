"""Is a student's Markdown answer shown as HTML that can run nothing, with LaTeX as MathML?"""
from coursekit.marking.render import render_markdown


def test_is_raw_html_escaped_not_passed_through():
    html = render_markdown("<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> **粗体**")
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert "<strong>粗体</strong>" in html


def test_do_links_keep_only_web_targets_and_images_become_their_alt_text():
    html = render_markdown("[a](javascript:alert(1)) [b](https://example.org) ![图 <b>](http://tracker.example/x.png)")
    assert "javascript:" not in html and 'href="https://example.org"' in html
    assert "tracker.example" not in html and "[图片：" in html and "<b>" not in html


def test_is_latex_mathml_without_links_or_styles():
    html = render_markdown(r"缩放 $\frac{1}{\sqrt{d}}$ 与 $\href{javascript:alert(1)}{x}$ $\style{color:red}{y}$")
    assert "<math" in html and "<msqrt>" in html
    assert "javascript" not in html and "style=" not in html


def test_is_latex_that_cannot_be_converted_shown_as_its_source():
    assert '<code class="latex">\\frac{a}{</code>' in render_markdown("$$\\frac{a}{$$")
