#!/usr/bin/env python3
"""The page of `s2s serve` (GET /) in a real headless Chromium, driven by Selenium.

    test_page.py S2S_BINARY REPO_ROOT SCREENSHOT_DIR

Starts `s2s serve` on a free loopback port with the shipped model (which gives word alignments)
and a fixture without an alignment layer, then checks, through the page as a person uses it:
keyboard-only translation (Tab to the text area, Ctrl+Enter) equal to `s2s translate`'s output;
hovering and focusing words highlights exactly the words the native endpoint aligns them to;
the n-best alternatives; beam size, glossary and HTML input equal to the command line's
--beam-size, --glossary and --html; a model without alignment says so; progress over long input;
server errors in words (a text over --max-chars, a stopped server); labels and contrast; no
horizontal scrolling at 375 px. Screenshots of each state go to SCREENSHOT_DIR.
Exit 77 (CTest's skip) when Chromium or its driver is not installed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP = 77
CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    print("SKIP: chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    sys.exit(SKIP)

from selenium import webdriver  # noqa: E402 (after the skip: python3-selenium comes with them)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BINARY, ROOT, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
MODEL = os.path.join(ROOT, "models", "en-de")
UNALIGNED = os.path.join(ROOT, "tests", "data", "models", "hf-marian-tied")
MAX_CHARS = 600
PARAGRAPHS = [
    "The file was not found. The licence is free.",
    "",
    "Open the settings and save your changes.",
]


def step(name, started=[time.time()]):
    """A line per step with its seconds, so that a slow one shows in the test's output."""
    now = time.time()
    print("%-24s %5.1f s" % (name, now - started[0]), flush=True)
    started[0] = now


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def cli_translate(lines, *flags, model=MODEL):
    out = subprocess.run([BINARY, "translate", "-m", model, "--threads", "1", *flags],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return out.stdout.rstrip("\n")


class Server:
    def __init__(self, work):
        port_file = os.path.join(work, "port")
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--port-file", port_file, "--threads", "1",
             "--max-chars", str(MAX_CHARS), "-m", "en-de=" + MODEL, "-m", "en-xx=" + UNALIGNED],
            stderr=open(os.path.join(work, "serve.log"), "w"))
        deadline = time.time() + 30
        while time.time() < deadline:
            text = open(port_file).read() if os.path.exists(port_file) else ""
            if text.endswith("\n"):
                self.url = "http://127.0.0.1:%d" % int(text)
                return
            check(self.process.poll() is None, "s2s serve exited: " + open(os.path.join(work, "serve.log")).read())
            time.sleep(0.05)
        raise AssertionError("s2s serve did not start")

    def native(self, body):
        request = urllib.request.Request(self.url + "/v1/translate", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        return json.load(urllib.request.urlopen(request))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1100,760", "--lang=en-US"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


class Page:
    def __init__(self, driver, server):
        self.d, self.server = driver, server
        self.shot_number = 0

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def shot(self, name):
        self.shot_number += 1
        self.d.save_screenshot(os.path.join(SHOTS, "%d-%s.png" % (self.shot_number, name)))

    def wait(self, condition, what, seconds=20):
        WebDriverWait(self.d, seconds, 0.05).until(lambda _: condition(), what)

    def wait_done(self):
        self.wait(lambda: not self.d.find_element(By.ID, "translate").get_attribute("disabled")
                  and not self.d.find_element(By.ID, "progress").is_displayed(), "translation to finish")

    def translation(self):
        return self.js("return [...document.querySelectorAll('#target-view .line')]"
                       ".map(p => p.textContent).join('\\n')")

    def error(self):
        return self.d.find_element(By.ID, "error").text

    def set_text(self, lines):
        if self.d.find_element(By.ID, "edit").is_displayed():
            self.d.find_element(By.ID, "edit").click()
        # Typing is checked once (keyboard_translation); here the text is set as a paste would.
        self.js("document.getElementById('source').value = arguments[0]", "\n".join(lines))

    def press_translate(self):
        self.d.find_element(By.ID, "translate").click()
        self.wait_done()

    def words(self, side, line):
        view = "source-view" if side == "source" else "target-view"
        return self.d.find_elements(By.CSS_SELECTOR, '#%s .w[data-line="%d"]' % (view, line))

    def highlighted(self, side):
        view = "source-view" if side == "source" else "target-view"
        return [w.text for w in self.d.find_elements(By.CSS_SELECTOR, "#%s .w.linked" % view)]

    def open_options(self):
        details = self.d.find_element(By.ID, "options")
        if details.get_attribute("open") is None:
            self.d.find_element(By.CSS_SELECTOR, "#options summary").click()


def code_points(text, begin, end):
    return "".join(list(text)[begin:end])


def expected_partners(source, hypothesis, side, word_begin):
    """The other side's words aligned to the word starting at code point word_begin of `side`."""
    here, there = (0, 1) if side == "source" else (1, 0)
    texts = (source, hypothesis["text"])
    found = []
    for pair in hypothesis["word_spans"]:
        if pair[here][0] == word_begin:
            begin, end = pair[there]
            found.append((begin, code_points(texts[there], begin, end)))
    return [word for _, word in sorted(set(found))]


def word_begins(text):
    begins, at = [], 0
    for match in re.finditer(r"[ \t\n\v\f\r]+|[^ \t\n\v\f\r]+", text):
        if not match.group(0)[0].isspace():
            begins.append(at)
        at += len(match.group(0))
    return begins


def check_offline(page):
    base = page.server.url
    resources = page.js("return performance.getEntriesByType('resource').map(e => e.name)")
    check(resources and all(r.startswith(base) for r in resources), "resources from elsewhere: %s" % resources)
    page_html = urllib.request.urlopen(base + "/").read().decode()
    check("http" not in page_html.replace(base, "").split("<footer>")[0].lower().replace("http-equiv", ""),
          "the page names an outside address")


def check_labels(page):
    unlabelled = page.js("""return [...document.querySelectorAll('input, select, textarea, button')]
        .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
        .map(e => e.outerHTML)""")
    check(unlabelled == [], "controls without a label: %s" % unlabelled)


def check_contrast(page):
    """WCAG AA (4.5:1) for the text, the highlights, hints and the error box."""
    pairs = page.js("""
        const parse = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const back = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
            if (!c.startsWith('rgba(0, 0, 0, 0)')) return parse(c); } return [255, 255, 255]; };
        const sel = ['body', '.w.active', '.w.linked', '.hint', '#error', '#translate', 'label', '.score'];
        return sel.flatMap(s => [...document.querySelectorAll(s)].slice(0, 1)
            .map(e => [s, parse(getComputedStyle(e).color), back(e)]));""")

    def luminance(rgb):
        channel = [c / 255 for c in rgb]
        channel = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channel]
        return 0.2126 * channel[0] + 0.7152 * channel[1] + 0.0722 * channel[2]

    seen = set()
    for selector, color, background in pairs:
        light, dark = sorted((luminance(color), luminance(background)), reverse=True)
        ratio = (light + 0.05) / (dark + 0.05)
        check(ratio >= 4.5, "%s: contrast %.2f below 4.5" % (selector, ratio))
        seen.add(selector)
    check({".w.active", ".w.linked", "#error"} <= seen, "contrast not measured on %s" % seen)


def keyboard_translation(page):
    """Tab from the page's start to the text area, type, Ctrl+Enter: the CLI's translation."""
    body = page.d.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(8):
        ActionChains(page.d).send_keys(Keys.TAB).perform()
        if page.js("return document.activeElement.id") == "source":
            break
    check(page.js("return document.activeElement.id") == "source", "Tab never reached the text area")
    for k, line in enumerate(PARAGRAPHS):
        ActionChains(page.d).send_keys(line).perform()
        if k + 1 < len(PARAGRAPHS):
            ActionChains(page.d).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    ActionChains(page.d).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()
    page.wait_done()
    check(page.error() == "", "error: " + page.error())
    want = cli_translate(PARAGRAPHS)
    check(page.translation() == want, "page %r != CLI %r" % (page.translation(), want))
    page.shot("translated")


def check_links(page, answer):
    """Every word of the first line, both sides, hovered: the highlights are the alignment's."""
    hypothesis = answer["results"][0]["hypotheses"][0]
    source = PARAGRAPHS[0]
    for side, text in (("source", source), ("target", hypothesis["text"])):
        other = "target" if side == "source" else "source"
        words = page.words(side, 0)
        begins = word_begins(text)
        check(len(words) == len(begins), "%s words on the page %d, in the text %d" % (side, len(words), len(begins)))
        for word, begin in zip(words, begins):
            ActionChains(page.d).move_to_element(word).perform()
            want = expected_partners(source, hypothesis, side, begin)
            got = page.highlighted(other)
            check(got == want, "hover %s %r: highlighted %r, alignment %r" % (side, word.text, got, want))
            check("active" in word.get_attribute("class"), "the hovered word is not marked")
    ActionChains(page.d).move_to_element(page.words("target", 0)[1]).perform()
    check(page.d.find_element(By.ID, "link-readout").text.startswith("Translation “"), "no readout in words")
    page.shot("hover")


def check_keyboard_words(page, answer):
    """Tab into the translation's words, arrow keys move, focus highlights as hover does."""
    hypothesis = answer["results"][0]["hypotheses"][0]
    page.d.find_element(By.ID, "target-view").click()
    page.js("document.getElementById('target-view').focus()")
    ActionChains(page.d).send_keys(Keys.TAB).perform()
    active = page.d.switch_to.active_element
    check("w" in active.get_attribute("class").split(), "Tab did not reach a translation word")
    begins = word_begins(hypothesis["text"])
    ActionChains(page.d).send_keys(Keys.ARROW_RIGHT).perform()
    active = page.d.switch_to.active_element
    check(active.get_attribute("data-word") == "1", "ArrowRight did not move to the next word")
    want = expected_partners(PARAGRAPHS[0], hypothesis, "target", begins[1])
    check(page.highlighted("source") == want, "focus highlight %r != %r" % (page.highlighted("source"), want))
    page.shot("keyboard-focus")


def check_alternatives(page, answer):
    hypotheses = answer["results"][0]["hypotheses"]
    check(len(hypotheses) == 4, "the native endpoint gave %d hypotheses" % len(hypotheses))
    toggle = page.d.find_element(By.CSS_SELECTOR, 'button[data-toggle-line="0"]')
    toggle.click()
    listed = [b.text for b in page.d.find_elements(By.CSS_SELECTOR, "#alternatives-0 button")]
    check(listed == [h["text"] for h in hypotheses], "alternatives %r" % listed)
    page.shot("alternatives")
    page.d.find_elements(By.CSS_SELECTOR, "#alternatives-0 button")[1].click()
    check(page.translation().split("\n")[0] == hypotheses[1]["text"], "choosing an alternative did not show it")
    ActionChains(page.d).move_to_element(page.words("target", 0)[0]).perform()
    want = expected_partners(PARAGRAPHS[0], hypotheses[1], "target", 0)
    check(page.highlighted("source") == want, "the alternative's links %r != %r" % (page.highlighted("source"), want))


def check_options(page, work):
    """Beam size, glossary and HTML input: as --beam-size, --glossary and --html."""
    page.open_options()
    text = ["The file was not found."]
    beam = page.d.find_element(By.ID, "beam")
    beam.send_keys("1")
    page.set_text(text)
    page.press_translate()
    check(page.translation() == cli_translate(text, "-b", "1"), "beam 1: %r" % page.translation())
    beam.clear()
    rows = page.d.find_elements(By.CSS_SELECTOR, "#glossary-rows input")
    rows[0].send_keys("file")
    rows[1].send_keys("Akte")
    page.press_translate()
    terms = os.path.join(work, "terms.tsv")
    open(terms, "w").write("file\tAkte\n")
    want = cli_translate(text, "--glossary", terms)
    check("Akte" in want and page.translation() == want, "glossary: page %r, CLI %r" % (page.translation(), want))
    page.shot("glossary")
    page.d.find_element(By.CSS_SELECTOR, "#glossary-rows button").click()
    select = page.d.find_element(By.ID, "format")
    select.find_element(By.CSS_SELECTOR, 'option[value="html"]').click()
    markup = ["Press <b>Ctrl+S</b> to save."]
    page.set_text(markup)
    page.press_translate()
    want = cli_translate(markup, "--html")
    check(page.translation() == want, "html: page %r, CLI %r" % (page.translation(), want))
    check("HTML" in page.d.find_element(By.ID, "model-note").text, "no note on HTML's missing links")
    page.shot("html")
    select.find_element(By.CSS_SELECTOR, 'option[value="text"]').click()


def check_unaligned_model(page):
    page.d.find_element(By.CSS_SELECTOR, '#pair option[value="1"]').click()
    note = page.d.find_element(By.ID, "model-note")
    check(note.is_displayed() and "no word alignments" in note.text, "no note for a model without alignment")
    text = ["The file was not found."]
    page.set_text(text)
    page.press_translate()
    check(page.error() == "", "error: " + page.error())
    check(page.translation() == cli_translate(text, model=UNALIGNED), "unaligned model: %r" % page.translation())
    check(page.words("target", 0) == [], "words are linked without an alignment")
    page.shot("no-alignment")
    page.d.find_element(By.CSS_SELECTOR, '#pair option[value="0"]').click()


def check_progress(page):
    """Long input goes a few lines per request: the progress moves (greedy, to stay quick)."""
    lines = ["Line %d: the file was saved." % i for i in range(1, 18)]
    page.open_options()
    page.d.find_element(By.ID, "beam").send_keys("1")
    page.set_text(lines)
    page.js("""window.progressSeen = [];
        new MutationObserver(() => window.progressSeen.push(document.getElementById('progress-text').textContent))
            .observe(document.getElementById('progress-text'), {childList: true, characterData: true, subtree: true});""")
    page.press_translate()
    seen = page.js("return window.progressSeen")
    for done in (0, 8, 16):
        check("Translating: %d of 17 lines done" % done in seen, "progress %d of 17 not shown: %r" % (done, seen))
    check(seen[-1].startswith("Translated 17 lines"), "no final progress: %r" % seen)
    want = cli_translate(lines, "-b", "1")
    check(page.translation() == want, "long input differs from the CLI")
    # Stop while the second request is out (held until aborted, as on a slow network): the
    # first request's lines stay, the rest is said to be missing.
    page.js("""const fetchNow = window.fetch; let requests = 0;
        window.fetch = (url, init) => ++requests === 1 ? fetchNow(url, init) : new Promise((_, reject) =>
            init.signal.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError'))));
        window.restoreFetch = () => { window.fetch = fetchNow; };""")
    page.d.find_element(By.ID, "translate").click()
    page.wait(lambda: page.d.find_element(By.ID, "progress-text").text.startswith("Translating: 8 of 17"),
              "the first request's progress")
    page.d.find_element(By.ID, "stop").click()
    page.js("window.restoreFetch()")
    page.wait_done()
    check(page.error() == "Stopped. Lines 1 to 8 of 17 are translated below, the rest is not.",
          "stop: %r" % page.error())
    check(page.translation().split("\n")[:8] == want.split("\n")[:8], "the lines done before Stop are not shown")
    page.d.find_element(By.ID, "beam").clear()


def check_too_long(page):
    page.set_text(["The file was saved. " * 40])
    page.press_translate()
    error = page.error()
    check("refused" in error and "exceeds text limit (%d)" % MAX_CHARS in error, "too long: %r" % error)
    check(page.d.find_element(By.ID, "source").is_displayed(), "the refused text is not left in the editor")
    page.shot("error-too-long")


def check_phone(page, answer):
    """375 px wide (after check_alternatives: line 1 shows its second hypothesis, the list open)."""
    chosen = answer["results"][0]["hypotheses"][1]
    page.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 375, "height": 740, "deviceScaleFactor": 2, "mobile": True})
    page.open_options()
    width = page.js("return [document.documentElement.scrollWidth, document.documentElement.clientWidth, innerWidth]")
    check(width[0] <= width[1] == 375, "horizontal scrolling at 375 px: %r" % width)
    check(page.js("return getComputedStyle(document.querySelector('.panes')).gridTemplateColumns.split(' ').length") == 1,
          "two columns at phone width")
    page.words("target", 0)[1].click()  # a tap
    want = expected_partners(PARAGRAPHS[0], chosen, "target", word_begins(chosen["text"])[1])
    check(page.highlighted("source") == want, "a tap highlighted %r, not %r" % (page.highlighted("source"), want))
    page.shot("phone")
    page.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def check_stopped_server(page):
    page.server.stop()
    page.set_text(["The file was not found."])
    page.press_translate()
    check("cannot be reached" in page.error(), "stopped server: %r" % page.error())
    page.shot("error-server-stopped")


def main():
    os.makedirs(SHOTS, exist_ok=True)
    for old in os.listdir(SHOTS):
        if old.endswith(".png"):
            os.remove(os.path.join(SHOTS, old))
    started = time.time()
    with tempfile.TemporaryDirectory() as work:
        server = Server(work)
        driver = browser()
        try:
            page = Page(driver, server)
            driver.get(server.url + "/")
            page.wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#pair option")) == 2, "the language pairs")
            check(driver.find_element(By.ID, "pair").text.splitlines()[0] == "English → German", "pair names")
            check_offline(page)
            step("check_offline")
            check_labels(page)
            step("check_labels")
            page.shot("start")
            keyboard_translation(page)
            step("keyboard_translation")
            answer = server.native({"text": PARAGRAPHS, "source": "en", "target": "de",
                                    "num_hypotheses": 4, "alignment": "hard"})
            check_links(page, answer)
            step("check_links")
            check_contrast(page)
            step("check_contrast")
            check_keyboard_words(page, answer)
            step("check_keyboard_words")
            check_alternatives(page, answer)
            step("check_alternatives")
            check_phone(page, answer)
            step("check_phone")
            check_options(page, work)
            step("check_options")
            check_unaligned_model(page)
            step("check_unaligned_model")
            check_progress(page)
            step("check_progress")
            check_too_long(page)
            step("check_too_long")
            check_stopped_server(page)
            step("check_stopped_server")
        except Exception:
            driver.save_screenshot(os.path.join(SHOTS, "failure.png"))
            raise
        finally:
            driver.quit()
            server.stop()
    print("web page: every check passed in %.1f s; screenshots in %s" % (time.time() - started, SHOTS))


if __name__ == "__main__":
    main()
