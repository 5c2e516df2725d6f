"""The book of executed notebooks (`mwplib.book`): how it is assembled (unit tier), and the smoke render's book
opened page by page in a real headless Chromium (slow tier; conftest runs it after the notebook tests, whose smoke
renders it reuses)."""
from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from browser import chromium, needs_chromium

from mwplib import book, paths
from mwplib.headless import execute_notebook, notebooks



def _notebook(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                         "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _code(source: str, html: str) -> dict:
    return {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "source": source,
            "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"text/html": html}}]}


def test_every_code_cell_is_folded_and_outputs_kept():
    nb = _notebook([{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# T"},
                    _code("x = 1", "<table><tr><td>1</td></tr></table>")])
    folded = book._folded(nb)
    assert folded["cells"][1]["metadata"]["tags"] == [book.HIDE_INPUT]
    assert "tags" not in folded["cells"][0]["metadata"]
    assert folded["cells"][1]["outputs"] == nb["cells"][1]["outputs"]
    assert book._folded(folded)["cells"][1]["metadata"]["tags"] == [book.HIDE_INPUT]  # idempotent


def test_contents_are_grouped_by_paper_in_reading_order():
    present = {n: Path(f"{n}_x.ipynb") for n in ("00", "01", "06", "07")}
    index = book._index("smoke", present)
    assert index.index("SVAMP") < index.index("01_x") < index.index("Annotating") < index.index("07_x")
    assert "02_x" not in index and index.count("{toctree}") == 4


def test_an_execution_left_by_a_renamed_notebook_does_not_stand_for_the_one_with_its_number(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "BUILD", tmp_path)
    executed = tmp_path / "notebooks" / "smoke"
    executed.mkdir(parents=True)
    current = next(paths.NOTEBOOKS.glob("07_*.ipynb")).name
    for name in (current, "07_zz_renamed_since.ipynb"):  # sorted after the current one, as 07_svamp_construction was
        (executed / name).write_text("{}")
    assert book.executed_notebooks("smoke") == {"07": executed / current}


def test_book_builds_from_executed_notebooks_and_names_a_missing_one(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "BUILD", tmp_path)
    with pytest.raises(book.BookError, match="no executed notebook 00 .* run ./run_all.sh --profile smoke"):
        book.build_book("smoke", ["00"])
    executed = tmp_path / "notebooks" / "smoke"
    executed.mkdir(parents=True)
    nb = _notebook([{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# Datasets"},
                    _code("show(table)", "<table><tr><td>2373</td></tr></table>")])
    (executed / "00_datasets.ipynb").write_text(json.dumps(nb))
    index = book.build_book("smoke", ["00"])
    page = (index.parent / "00_datasets.html").read_text()
    assert "2373" in page and "<details" in page and "Show code" in page
    assert "Copyright" not in page  # furo's footer said "Copyright ©" and nothing after it
    assert "00_datasets.html" in index.read_text()


def _rendered_smoke_book() -> Path:
    """The smoke render's book: notebooks the notebook tests did not execute in this session are executed first."""
    present = book.executed_notebooks("smoke")
    for number in (n for numbers in book.PARTS.values() for n in numbers if n not in present):
        stem = next(paths.NOTEBOOKS.glob(f"{number}_*.ipynb")).stem
        execute_notebook(stem, "smoke")
    return book.build_book("smoke")


@pytest.mark.slow
@needs_chromium
def test_every_page_of_the_smoke_book_loads_in_a_browser_with_its_tables_and_images():
    index = _rendered_smoke_book()
    root = index.parent
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    shots = paths.BUILD / "book-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    driver = chromium()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        chapters = sorted(p.name for p in root.glob("[0-9][0-9]_*.html"))
        assert len(chapters) == sum(map(len, book.PARTS.values()))
        for page in ["index.html", *chapters]:
            driver.get(base + page)
            assert driver.execute_script("return document.readyState") == "complete"
            assert driver.title, page
            broken = driver.execute_script(
                "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
            assert not broken, f"{page}: broken images {broken}"
            for href in driver.execute_script("return [...document.links].map(a => a.href)"):
                url = urlparse(href)
                if url.netloc == urlparse(base).netloc:
                    target = root / unquote(url.path).lstrip("/")
                    assert (target / "index.html" if target.is_dir() else target).exists(), f"{page}: {href}"
            if page != "index.html":
                assert driver.execute_script("return document.querySelectorAll('table').length") > 0, page
                assert driver.execute_script("return document.querySelectorAll('details').length") > 0, page
            driver.save_screenshot(str(shots / page.replace(".html", ".png")))
    finally:
        driver.quit()
        server.shutdown()


def test_a_figure_shown_as_its_path_is_caught(tmp_path):
    """The check every notebook test runs on its executed notebook (`notebook_runner.figure_output_problems`): a
    saved figure needs an image in the page, and no output may print a path object or this machine's repository."""
    from notebook_runner import figure_output_problems

    def executed(*outputs: dict) -> Path:
        path = tmp_path / "nb.ipynb"
        path.write_text(json.dumps(_notebook([{"cell_type": "code", "execution_count": 1, "id": "c", "metadata": {},
                                               "source": "", "outputs": list(outputs)}])))
        return path

    path_repr = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                 "data": {"text/plain": f"PosixPath('{paths.FIGURES}/quick/05_accuracy_by_variation.png')"}}
    image = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo=",
                                                                      "text/plain": "<IPython.core.display.Image>"}}
    warning = {"output_type": "stream", "name": "stderr", "text": f"{paths.ROOT}/.venv/lib/tqdm/auto.py: TqdmWarning"}
    assert len(figure_output_problems(executed(path_repr), ["05_accuracy_by_variation.png"])) == 3
    assert figure_output_problems(executed(image, warning), ["05_accuracy_by_variation.png"]) == []
    assert figure_output_problems(executed(), []) == []


def test_each_notebooks_bookkeeping_runs_but_stays_out_of_the_book():
    """Issue 49: every notebook ended in its metrics record, a cell for the headless run, not the reader."""
    import json

    for path in sorted(Path(__file__).resolve().parents[1].glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        recording = [c for c in cells if c["cell_type"] == "code" and "outputs.record(" in "".join(c["source"])]
        assert recording, path.name
        assert all(book.BOOKKEEPING in c["metadata"].get("tags", []) for c in recording), path.name


def _executed(run: int) -> dict:
    """An executed notebook as papermill leaves it, with render `run`'s timings, paths and random ids."""
    nb = _notebook([_code("show(table)", "<table><tr><td>2373</td></tr></table>"),
                    {**_code("record()", "{}"), "metadata": {"tags": [book.BOOKKEEPING]}}])
    printed = ["8 runs: 68.36 %\n", "not answered yet\n"]  # as the kernel flushed it: in one chunk, or line by line
    nb["cells"][0]["outputs"] += [{"output_type": "stream", "name": "stdout", "text": text}
                                  for text in (["".join(printed)] if run == 1 else printed)]
    nb["cells"].insert(0, {"cell_type": "code", "execution_count": 1, "id": f"{run:08x}", "outputs": [],
                           "metadata": {"tags": [book.INJECTED]}, "source": 'PROFILE = "quick"'})
    for cell in nb["cells"]:
        cell["metadata"] |= {"execution": {"iopub.status.idle": f"2026-11-27T20:0{run}:00Z"},
                             "papermill": {"duration": run / 3}}
    nb["metadata"] |= {"language_info": {"name": "python", "version": f"3.11.{run}"},
                       "papermill": {"input_path": f"{paths.ROOT}/notebooks/00_datasets.ipynb", "duration": run}}
    return nb


def test_a_readers_copy_is_the_same_at_every_render_and_leaves_out_the_bookkeeping():
    """Issue 49: a re-render from the same records must leave docs/book/ byte for byte as it was."""
    first, second = book.reader_copy(_executed(1)), book.reader_copy(_executed(2))
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert [cell["id"] for cell in first["cells"]] == [book.INJECTED, "c1"]
    assert first["cells"][1]["outputs"][0]["data"]["text/html"].startswith("<table>")
    assert first["cells"][1]["outputs"][1]["text"] == ["8 runs: 68.36 %\n", "not answered yet\n"]
    assert first["metadata"] == {"kernelspec": _notebook([])["metadata"]["kernelspec"],
                                 "language_info": {"name": "python"}}
    assert [cell["metadata"] for cell in first["cells"]] == [{"tags": [book.INJECTED]}, {}]


def test_a_copy_naming_this_machine_is_refused_and_a_clean_one_is_indexed(tmp_path, monkeypatch):
    """An output printing this repository's path would differ on every machine and open nothing for a reader."""
    for name in ("BUILD", "BOOK", "NOTEBOOKS"):
        monkeypatch.setattr(paths, name, tmp_path / name.lower())
    paths.NOTEBOOKS.mkdir()
    (paths.NOTEBOOKS / "00_datasets.ipynb").write_text(json.dumps(_notebook(
        [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# 00 · The datasets\n\nText."}])))
    executed = paths.BUILD / "notebooks" / "quick" / "00_datasets.ipynb"
    executed.parent.mkdir(parents=True)
    leak = _executed(1)
    leak["cells"][1]["outputs"].append({"output_type": "stream", "name": "stderr",
                                        "text": f"{paths.ROOT}/mwplib/outputs.py:1: UserWarning"})
    executed.write_text(json.dumps(leak))
    with pytest.raises(book.BookError, match="00_datasets.ipynb names a path of this machine"):
        book.write_copies("quick")
    assert not paths.BOOK.exists()
    executed.write_text(json.dumps(_executed(1)))
    assert (book.write_copies("quick") / "00_datasets.ipynb").read_text().endswith("}\n")
    assert "- [00 · The datasets](quick/00_datasets.ipynb)" in (paths.BOOK / "README.md").read_text()
    assert book.machine_path("the square/root of 9; /rooted") is None


@pytest.mark.parametrize("profile", book.PUBLISHED)
def test_every_notebook_has_a_committed_readers_copy_of_its_current_source(profile: str):
    """docs/book/<profile>/ is what a reader on GitHub sees: a copy missing, left from a removed notebook, without
    outputs, or executed from an older source fails (./run_all.sh --profile <profile> --from-records rewrites them)."""
    copies = sorted((paths.BOOK / profile).glob("*.ipynb"))
    assert [copy.name for copy in copies] == [nb.name for nb in notebooks()]
    for copy, source in zip(copies, notebooks()):
        cells = json.loads(copy.read_text())["cells"]
        assert any(cell.get("outputs") for cell in cells), copy.name
        kept = ["".join(c["source"]) for c in json.loads(source.read_text())["cells"]
                if book.BOOKKEEPING not in c["metadata"].get("tags", [])]
        shown = ["".join(c["source"]) for c in cells if book.INJECTED not in c["metadata"].get("tags", [])]
        assert shown == kept, f"docs/book/{profile}/{copy.name} was executed from an older {source.name}"
