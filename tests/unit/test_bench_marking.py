"""Does benchmarks/bench_marking.py run (its smoke mode), and does the page save the TA marks by hand on it?"""
import importlib.util

from coursekit.paths import REPO


def test_does_the_marking_benchmark_run_and_the_page_save_marks_by_hand(capsys):
    """40 students, one question per language: the simulated TA reaches 95 % agreement marking fewer answers by hand
    than all of them, every suggestion Enter saved was the true mark, and the calibration found where Enter starts?"""
    spec = importlib.util.spec_from_file_location("bench_marking", REPO / "benchmarks" / "bench_marking.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.main(["--smoke"])
    for lang, found in figures.items():
        page = found["the page"]
        assert page["reached"] == page["runs"] == 1 and page["answers"] < found["students"], (lang, page)
        assert page["precision"] >= bench.AGREE, (lang, page)
        assert 0 < found["the page: calibrated"]["start"] <= 1.0
    assert "everything by hand" in capsys.readouterr().out
