"""Is a student's Markdown answer shown as HTML that can run nothing, with LaTeX as MathML?

Every row of the payload table through this renderer and the others: tests/unit/test_sanitise.py.
"""
from coursekit.marking.render import render_markdown


def test_is_raw_html_escaped_not_passed_through():
    html = render_markdown("<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> **粗体**")
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert "<strong>粗体</strong>" in html


def test_is_no_link_clickable_and_do_images_become_their_alt_text():
    """A link is its words and its target as text (the marker sees where it points, and cannot follow it)?"""
    html = render_markdown("[a](javascript:alert(1)) [b](https://example.org) ![图 <b>](http://tracker.example/x.png)")
    assert "<a" not in html and "href" not in html and "b (https://example.org)" in html
    assert "tracker.example" not in html and "[图片：" in html and "<b>" not in html


def test_is_latex_mathml_without_links_styles_or_markup_from_text():
    html = render_markdown(r"缩放 $\frac{1}{\sqrt{d}}$ 与 $\href{javascript:alert(1)}{x}$ $\style{color:red}{y}$ "
                           r"$\text{<img/src/onerror=alert(1)>}$")
    assert "<math" in html and "<msqrt>" in html
    assert "javascript" not in html and "style=" not in html and "onerror" not in html and "src=" not in html


def test_is_latex_that_cannot_be_converted_shown_as_its_source():
    assert "<code>\\frac{a}{</code>" in render_markdown("$$\\frac{a}{$$")
