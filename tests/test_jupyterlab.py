"""Notebook 01 as a reader meets it (issue 49): in JupyterLab, in a real headless Chromium, run through the UI's
Run menu rather than by papermill, with no traceback or standard-error output in any cell (but a training run's
notes); then its first exercise is answered by typing into the cell's editor, wrong and then right. Slow tier, in
the renders process right after test_notebook_01, whose smoke runs it reuses (conftest)."""
from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser import chromium, needs_chromium

from mwplib import findings, paths
from mwplib.headless import INLINE_BACKEND

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

NOTEBOOK = "01_baselines"
#: The outputs a reader should never see in this notebook, shown on red: JupyterLab renders text written to standard
#: error (a warning, a library's progress bar) and a traceback (an `error` output) alike, as this MIME type.
STDERR = '[data-mime-type="application/vnd.jupyter.stderr"]'
#: What notebook 01 writes to standard error by design, and only while it trains (run before test_notebook_01 has
#: recorded its smoke runs): epoch progress bars, blank once done (`leave=False`), and the time `trained.solver_for`
#: expects its training to take.
TRAINING_NOTES = re.compile(r"\s*(training [^\n]*)?\s*")
#: The status bar's kernel item once the kernel has started and answered.
KERNEL_IDLE = "//*[contains(@class, 'jp-StatusBar-TextItem') and contains(text(), '(ipykernel) | Idle')]"
#: JupyterLab's settings for this test: every cell kept in the page (not only those scrolled into view), so that
#: the checks and the screenshot see them all, and no blank page's height after the last; no pop-up asking about
#: Jupyter news over the notebook.
SETTINGS = {"notebook-extension/tracker": '{"windowingMode": "none", "scrollPastEnd": false}',
            "apputils-extension/notification": '{"fetchNews": "false"}'}


def _listening(port: int) -> bool:
    """Whether a server accepts connections on localhost's `port`."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture()
def lab(tmp_path: Path) -> Iterator[str]:
    """JupyterLab on a free localhost port with a random token, serving notebook 01 prepared for the smoke profile
    in a folder of its own; yields the notebook's URL and stops the server (and so its kernel) however the test
    ends. The kernel imports this checkout's mwplib (`PYTHONPATH`, `MWPLIB_ROOT`: where it is installed from another
    one) and writes this checkout's smoke records, and shows figures inline as a reader's kernel does."""
    import papermill

    served = tmp_path / "notebook"
    served.mkdir()
    papermill.execute_notebook(str(paths.NOTEBOOKS / f"{NOTEBOOK}.ipynb"), str(served / f"{NOTEBOOK}.ipynb"),
                               parameters={"PROFILE": "smoke"}, prepare_only=True, kernel_name="python3",
                               language="python", progress_bar=False)
    for name, text in SETTINGS.items():
        setting = tmp_path / "settings" / "@jupyterlab" / f"{name}.jupyterlab-settings"
        setting.parent.mkdir(parents=True, exist_ok=True)
        setting.write_text(text)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = secrets.token_hex(16)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(paths.ROOT), os.environ.get("PYTHONPATH")])),
           "MWPLIB_ROOT": str(paths.ROOT), "MPLBACKEND": INLINE_BACKEND,
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    log = tmp_path / "jupyterlab.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
             "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}"],
            env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert server.poll() is None and time.monotonic() < deadline, f"no JupyterLab:\n{log.read_text()}"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}.ipynb?token={token}"
    finally:
        server.terminate()  # the server shuts its kernel down on SIGTERM
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def _prompts(driver: WebDriver) -> list[str]:
    """The execution prompt of every code cell, in order: "[ ]:" not run, "[*]:" running or queued, "[3]:" run."""
    return driver.execute_script("return [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]"
                                 ".map(p => p.textContent)")


def _settled(driver: WebDriver) -> bool:
    """The kernel is idle with nothing queued, and every code cell has run or one stopped the run with an error (a
    cell that runs on shows "[*]:" till then). The status bar turns idle only once the kernel has sent a cell's
    outputs, so they are all in the page."""
    from selenium.webdriver.common.by import By

    prompts = _prompts(driver)
    return ("[*]:" not in prompts and bool(driver.find_elements(By.XPATH, KERNEL_IDLE))
            and (all(re.fullmatch(r"\[\d+\]:", p) for p in prompts)
                 or bool(driver.find_elements(By.CSS_SELECTOR, STDERR))))


def _answer(driver: WebDriver, cell: WebElement, answer: str) -> str:
    """Type `answer = "<answer>"` over the exercise cell's `answer = ...` line in its editor, as a reader does, run
    the cell (Ctrl+Enter) and return the last line it prints: the verdict of `lesson.check`."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    prompt = cell.find_element(By.CSS_SELECTOR, ".jp-InputPrompt")
    before = prompt.text
    cell.find_element(By.XPATH, ".//div[contains(@class, 'cm-line')][starts-with(., 'answer = ')]").click()
    driver.switch_to.active_element.send_keys(Keys.HOME, Keys.SHIFT, Keys.END, Keys.NULL, f'answer = "{answer}"',
                                              Keys.CONTROL, Keys.ENTER, Keys.NULL)
    WebDriverWait(driver, 60).until(lambda d: prompt.text != before and _settled(d),
                                    f"the exercise cell did not run with answer {answer!r}")
    return cell.find_element(By.CSS_SELECTOR, ".jp-OutputArea").text.splitlines()[-1]


@pytest.mark.slow
@needs_chromium
def test_notebook_01_runs_in_jupyterlab_and_its_first_exercise_is_answered_in_the_editor(lab: str) -> None:
    """What papermill cannot see: the notebook in the interface a reader runs it in (menus, kernel, the editor, the
    outputs as rendered), and an exercise's check answering what the reader typed. The right answer is read off the
    cell's output, as a reader would: the McNemar p it prints against `findings.SIGNIFICANCE`. A screenshot of the
    whole notebook is kept for a look by eye."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = chromium()
    try:
        driver.get(lab)
        WebDriverWait(driver, 120).until(lambda d: d.find_elements(By.XPATH, KERNEL_IDLE), "no idle kernel")
        driver.find_element(By.XPATH, "//div[contains(@class, 'lm-MenuBar-itemLabel')][text()='Run']").click()
        driver.find_element(By.XPATH, "//div[contains(@class, 'lm-Menu-itemLabel')][text()='Run All Cells']").click()
        # Half a minute after test_notebook_01; run alone, it trains notebook 01's smoke runs: up to ten minutes on a
        # busy 2-core machine, within pytest's 900 s.
        WebDriverWait(driver, 780, poll_frequency=0.5).until(_settled, "Run All Cells did not finish")
        cells = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell")
        shown = [(number, cell.find_element(By.CSS_SELECTOR, ".cm-content").text.splitlines()[0], output.text)
                 for number, cell in enumerate(cells, 1)
                 for output in cell.find_elements(By.CSS_SELECTOR, STDERR)
                 if not TRAINING_NOTES.fullmatch(output.text)]
        assert not shown, "\n".join(f"code cell {n} ({line!r}) shows:\n{text[-1000:]}" for n, line, text in shown)
        assert all(re.fullmatch(r"\[\d+\]:", p) for p in _prompts(driver)), _prompts(driver)

        exercise = next(c for c in cells if "lesson.check(" in c.find_element(By.CSS_SELECTOR, ".cm-content").text)
        printed = exercise.find_element(By.CSS_SELECTOR, ".jp-OutputArea").text
        p = re.search(r"McNemar p = (\S+)", printed)
        assert p, printed
        right, wrong = (("significant", "within noise") if float(p[1]) < findings.SIGNIFICANCE
                        else ("within noise", "significant"))
        assert _answer(driver, exercise, wrong).startswith("not yet")
        assert _answer(driver, exercise, right) == "right"

        scroller = driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-WindowedPanel-outer")
        hidden = driver.execute_script("arguments[0].scrollTop = 0; "
                                       "return arguments[0].scrollHeight - arguments[0].clientHeight", scroller)
        driver.set_window_size(1280, driver.get_window_size()["height"] + hidden)  # the whole notebook in view
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return arguments[0].scrollHeight <= arguments[0].clientHeight", scroller))
        shot = paths.BUILD / "jupyterlab" / f"{NOTEBOOK}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(shot))
        print(f"screenshot: {shot}")
    finally:
        driver.quit()
