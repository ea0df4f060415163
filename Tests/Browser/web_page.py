"""The web page of `xkcd-search serve` in a real, headless Chromium (issue 26).

Run by Tests/CLITests/BrowserTests.swift against a server on the fixture index:

    python3 web_page.py BASE_URL ARTIFACTS_DIR FORM_ANSWER

FORM_ANSWER is what `xkcd-search search` answers for FORM_QUERY on the same index: the comic
numbers, comma-separated.

Every wait is on an event (an element present, a text or URL changed), never a fixed sleep.
Writes the figures for docs/web.md to ARTIFACTS_DIR/figures.json, beside the screenshots; a
failed check raises and exits 1.
"""
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/")
ARTIFACTS = sys.argv[2]
# Only a guard against a hang: a busy 2-core machine is slow, never this slow.
HANG_GUARD = 120
SIZES = {"wide": (1280, 800), "phone": (390, 844)}
QUERY, TARGET = "bobby tables", 327
# A situation for "is there an xkcd for this?": #327 fits it, though it names neither the comic
# nor Bobby. Its `f` and `/` must reach the box, not the page's keys.
PASSAGE = ("Our school lost a year of student records because a kid's name had a SQL command in it.\n"
           "Sanitize your inputs, folks: it's 2024 and/or later.")
# A query that more than a batch (20) of the fixture comics answer.
BROAD = "the"
# A query with OR, an exclusion and a filter: the form sends it as browsers encode a form, `+`
# for each space (issue 39), and the page must answer what the CLI answers for the same words.
FORM_QUERY = "exploits OR dependency -mom year:2007..2020"
FORM_ANSWER = [f"{BASE}/{number}" for number in sys.argv[3].split(",") if number]
# Images of comics for "Which xkcd is this?": chosen with the file input, and pasted.
IMAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_XKCDTestSupport", "Fixtures", "images")
CHOSEN, CHOSEN_COMIC = os.path.join(IMAGES, "identify", "exploits_of_a_mom-half.jpg"), 327
PASTED, PASTED_COMIC = os.path.join(IMAGES, "dependency.png"), 2347


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def browser(javascript=True):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("XKCD_SEARCH_CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", "--lang=en-GB"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    # Debian's chromedriver, named: Selenium's own manager would look for one on the internet.
    service = Service(executable_path=os.environ.get("XKCD_SEARCH_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(HANG_GUARD)
    size(driver, "wide")
    return driver


def size(driver, name):
    width, height = SIZES[name]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": name == "phone"})


def scheme(driver, name):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": name}]})


def wait(driver, condition, what):
    # An element found just before a navigation (a form posted, a redirect followed) goes stale
    # when the new page replaces it: that is "not yet", so look again, as for an element not there.
    return WebDriverWait(driver, HANG_GUARD, ignored_exceptions=[StaleElementReferenceException]).until(
        condition, f"hung waiting for {what}")


def arrived(driver, url, what):
    """Waits until the browser shows `url` and has finished loading it, with its script running:
    the address changes as soon as a navigation starts, before the page can take a key."""
    wait(driver, lambda d: d.current_url == url and d.execute_script("return document.readyState") == "complete", what)


def image_loaded(driver):
    return wait(driver, lambda d: d.execute_script(
        "const i = document.querySelector('.comic img'); return i && i.complete && i.naturalWidth > 0"),
        "the comic's image to load")


def results(driver, section="#results"):
    return [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, f"{section} ol.results > li > a")]


def ask_relevant(driver, passage):
    """The passage typed on /relevant and posted; waits for the page of the comics that fit."""
    driver.get(BASE + "/relevant")
    box = driver.find_element(By.ID, "text")
    box.send_keys(passage)
    driver.find_element(By.CSS_SELECTOR, "form.passage button[type=submit]").click()
    wait(driver, lambda d: results(d, "#fitting"), "the comics that fit the passage")


def identify_by_choosing(driver):
    """An image chosen with the file input on /identify; waits for the comics it shows."""
    driver.get(BASE + "/identify")
    driver.find_element(By.ID, "image").send_keys(os.path.abspath(CHOSEN))
    if not driver.execute_script("return document.querySelector('p.drop').hidden === false"):
        # Without JavaScript the form is posted as it is.
        driver.find_element(By.CSS_SELECTOR, "form.identify button[type=submit]").click()
    wait(driver, lambda d: results(d, "#identified"), "the comics the chosen image shows")
    check(results(driver, "#identified")[:1] == [f"{BASE}/{CHOSEN_COMIC}"],
          f"#{CHOSEN_COMIC} from its picture: {results(driver, '#identified')[:3]}")
    read = driver.find_element(By.CSS_SELECTOR, "#identified p.read").text
    check(read.startswith("Read in the image:"), f"the words read are shown: {read}")


def identify_by_pasting(driver):
    """A screenshot pasted on /identify (a paste event holding an image, as Ctrl-V gives)."""
    driver.get(BASE + "/identify")
    with open(PASTED, "rb") as file:
        data = base64.b64encode(file.read()).decode()
    driver.execute_script("""
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        const clipboard = new DataTransfer();
        clipboard.items.add(new File([bytes], 'screenshot.png', { type: 'image/png' }));
        document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true }));
    """, data)
    wait(driver, lambda d: results(d, "#identified"), "the comics the pasted image shows")
    check(results(driver, "#identified")[:1] == [f"{BASE}/{PASTED_COMIC}"],
          f"#{PASTED_COMIC} from a paste: {results(driver, '#identified')[:3]}")
    reasons = driver.find_element(By.CSS_SELECTOR, "#identified .result .reasons").text
    check("holds the words read: " in reasons, f"why #{PASTED_COMIC} fits: {reasons}")


def missing_image(driver):
    """A comic whose image the server cannot fetch (#2: not on the fixture image server) says so
    in words on its first visit, with a link to xkcd.com, rather than showing a broken picture."""
    driver.get(f"{BASE}/2")
    wait(driver, lambda d: "could not be fetched" in d.find_element(By.CSS_SELECTOR, ".comic").text,
         "the missing image said in words")
    check(driver.find_elements(By.CSS_SELECTOR, ".comic .frame img") == [], "no broken picture")
    check(driver.find_elements(By.CSS_SELECTOR, ".comic p.full") == [], "no link to the image that is missing")
    link = driver.find_element(By.CSS_SELECTOR, ".comic .notice a").get_attribute("href")
    check(link == "https://xkcd.com/2/", f"the notice links the comic on xkcd.com: {link}")
    # The browser logs the image's 404 itself; nothing else may be there.
    errors = [e for e in console_errors(driver) if "/images/2 - Failed to load resource" not in e]
    check(errors == [], f"console errors on a missing image: {errors}")


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def check_console_clean(driver, when=""):
    # The browser's log is emptied by reading it: read once, and name what it held.
    errors = console_errors(driver)
    check(errors == [], f"console errors{when}: {errors}")


def with_javascript(driver, figures):
    driver.get(BASE + "/")
    box = driver.find_element(By.CSS_SELECTOR, "form[action='/search'] input[type=search][name=q]")
    check(driver.switch_to.active_element == box, "the search box is focused on /")

    # Typing: suggestions while the last word is incomplete, then results without Enter.
    box.send_keys("bobby tab")
    wait(driver, lambda d: "bobby tables" in [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#suggestions option")],
         "the suggestion 'bobby tables'")
    box.send_keys("les")
    # Drawn for the whole query (the address follows each search once its results are drawn).
    wait(driver, lambda d: d.current_url == BASE + "/search?q=bobby%20tables", "the results of the whole query")
    check(results(driver)[:1] == [f"{BASE}/{TARGET}"], f"#{TARGET} first in the live results: {results(driver)[:3]}")
    # Keystroke to results drawn, for this query and a few more typed after it.
    for query in ["password strength", "the one where a mother names her son after a database attack",
                  "standards", "nebraska dependency"]:
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(query)
        wait(driver, EC.url_to_be(f"{BASE}/search?q={urllib.parse.quote(query)}"), f"the results of {query}")
    measures = sorted(driver.execute_script("return performance.getEntriesByName('xkcd-results').map(m => m.duration)"))
    check(measures, "the script measured keystroke to results")
    figures["keystroke_to_results_ms"] = {
        "median": round(measures[len(measures) // 2], 1), "max": round(measures[-1], 1), "count": len(measures),
        "debounce": 120}
    driver.get(f"{BASE}/search?q={urllib.parse.quote(QUERY)}")

    driver.find_element(By.CSS_SELECTOR, "#results ol.results > li > a").click()
    arrived(driver, f"{BASE}/{TARGET}", f"the page of #{TARGET}")
    image_loaded(driver)
    check(driver.find_element(By.CSS_SELECTOR, ".comic img").get_attribute("alt").startswith("Her daughter is named"),
          "the title text is the image's alt text")
    check("Her daughter is named" in driver.find_element(By.CSS_SELECTOR, ".title-text").text, "the title text is on the page")

    # Keys: → next, ← previous, / the search box.
    following = driver.find_element(By.CSS_SELECTOR, "a[rel=next]").get_attribute("href")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    arrived(driver, following, "→ to the next comic")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    arrived(driver, f"{BASE}/{TARGET}", "← back to the previous comic")
    # Keys that no link names, a quote and a backslash among them, do nothing (and break nothing).
    check_console_clean(driver, " before other keys")
    driver.find_element(By.TAG_NAME, "body").send_keys('"\\]x')
    check(driver.current_url == f"{BASE}/{TARGET}", f"keys no link names stay on the page: {driver.current_url}")
    check_console_clean(driver, " after a quote and a backslash")
    driver.find_element(By.TAG_NAME, "body").send_keys("/")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "q", "/ to focus the search box")

    # Loading the next batch of results.
    driver.get(f"{BASE}/search?q={BROAD}")
    check(len(results(driver)) == 20, f"a first batch of 20: {len(results(driver))}")
    more = driver.find_element(By.CSS_SELECTOR, "a[data-more]")
    driver.execute_script("arguments[0].scrollIntoView()", more)
    wait(driver, lambda d: len(results(d)) > 20, "the next batch")
    loaded = results(driver)
    check(len(set(loaded)) == len(loaded), "no comic twice after loading more")
    figures["batch"] = {"query": BROAD, "first": 20, "after_more": len(loaded)}
    check_console_clean(driver)

    # The favourite toggle, with f: through the JSON API, in place (no reload). `xkcd-search fav
    # list` is checked by the Swift test.
    driver.get(f"{BASE}/{TARGET}")
    button = driver.find_element(By.CSS_SELECTOR, "form.favourite button")
    check("favourite" in (button.accessible_name or "").lower(), f"the toggle's name says favourite: {button.accessible_name}")
    driver.execute_script("window.xkcdNotReloaded = true")
    driver.find_element(By.TAG_NAME, "body").send_keys("f")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "form.favourite button").get_attribute("aria-pressed") == "true",
         "the favourite toggle pressed")
    check(driver.execute_script("return window.xkcdNotReloaded === true"), "the favourite changed without a reload")

    # The bytes a comic page transfers, from an empty cache.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(f"{BASE}/{TARGET}")
    image_loaded(driver)
    figures["comic_page_bytes"] = driver.execute_script("""
        const out = {};
        const add = (kind, entry) => {
          out[kind] = (out[kind] || { transfer: 0, body: 0 });
          out[kind].transfer += entry.transferSize; out[kind].body += entry.encodedBodySize;
        };
        add('html', performance.getEntriesByType('navigation')[0]);
        for (const r of performance.getEntriesByType('resource')) {
          const kind = r.name.endsWith('.css') ? 'css' : r.name.endsWith('.js') ? 'js' : r.initiatorType === 'img' ? 'image' : r.name;
          add(kind, r);
        }
        return out;""")
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})

    # "Is there an xkcd for this?": a passage typed in the box, the comics that fit it, with why.
    ask_relevant(driver, PASSAGE)
    kept = driver.find_element(By.ID, "text").get_attribute("value")
    check(kept == PASSAGE, f"the passage kept as typed: {kept!r}")
    check(results(driver, "#fitting")[:1] == [f"{BASE}/{TARGET}"], f"#{TARGET} fits: {results(driver, '#fitting')[:3]}")
    reasons = driver.find_element(By.CSS_SELECTOR, "#fitting .result .reasons").text
    check("shares the words: " in reasons and "similar in meaning (" in reasons, f"why #{TARGET} fits: {reasons}")
    sure = driver.find_element(By.CSS_SELECTOR, "#fitting .confidence").text
    check(sure in ("The first fits well.", "The first might fit.", "The first is a long shot."), f"how sure: {sure!r}")
    check_console_clean(driver)

    # Which xkcd is this: an image chosen, then one pasted.
    identify_by_choosing(driver)
    identify_by_pasting(driver)
    check_console_clean(driver)

    missing_image(driver)

    figures["accessibility"] = accessibility(driver)
    screenshots(driver)
    check_console_clean(driver)


def accessibility(driver):
    """axe-core's rules on each page (the copy that axe-selenium-python ships); the violations."""
    try:
        import axe_selenium_python
    except ImportError:
        return "axe-selenium-python is not installed"
    source = os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js")
    with open(source) as file:
        axe = file.read()
    found = {}
    for path in ["/", f"/search?q={QUERY}", f"/{TARGET}", "/favourites", "/about", "/relevant", "/identify"]:
        if path == "/relevant":
            ask_relevant(driver, PASSAGE)
        elif path == "/identify":
            identify_by_choosing(driver)
        else:
            driver.get(BASE + path)
        driver.execute_script(axe)
        outcome = driver.execute_async_script("const done = arguments[0]; axe.run().then(done, (e) => done({error: String(e)}))")
        check("error" not in outcome, f"axe failed on {path}: {outcome.get('error')}")
        found[path] = {
            "passes": len(outcome["passes"]),
            "violations": [f"{v['id']} ({v['impact']}): {len(v['nodes'])}" for v in outcome["violations"]],
        }
        check(found[path]["violations"] == [], f"axe-core's violations on {path}: {found[path]['violations']}")
    return found


def screenshots(driver):
    pages = {"home": "/", "search": f"/search?q={QUERY}", "comic": f"/{TARGET}"}
    for colours in ["light", "dark"]:
        scheme(driver, colours)
        for name in SIZES:
            size(driver, name)
            for page, path in pages.items():
                driver.get(BASE + path)
                if page == "comic":
                    image_loaded(driver)
                driver.save_screenshot(os.path.join(ARTIFACTS, f"{page}-{name}-{colours}.png"))
            ask_relevant(driver, PASSAGE)
            driver.save_screenshot(os.path.join(ARTIFACTS, f"relevant-{name}-{colours}.png"))
            identify_by_pasting(driver)
            driver.save_screenshot(os.path.join(ARTIFACTS, f"identify-{name}-{colours}.png"))
    scheme(driver, "light")
    size(driver, "wide")


def without_javascript(driver, figures):
    driver.get(BASE + "/")
    box = driver.find_element(By.CSS_SELECTOR, "input[type=search][name=q]")
    box.send_keys(QUERY + Keys.ENTER)
    wait(driver, lambda d: "/search?q=" in d.current_url and results(d), "the form's search page")
    check(results(driver)[:1] == [f"{BASE}/{TARGET}"], f"#{TARGET} first without JavaScript: {results(driver)[:3]}")
    driver.find_element(By.CSS_SELECTOR, "#results ol.results > li > a").click()
    arrived(driver, f"{BASE}/{TARGET}", f"the page of #{TARGET}")
    image_loaded(driver)

    driver.find_element(By.CSS_SELECTOR, "input[type=search][name=q]").send_keys(FORM_QUERY + Keys.ENTER)
    wait(driver, lambda d: "/search?q=" in d.current_url and results(d), "the form's search page")
    check("+OR+" in driver.current_url, f"the form sent its spaces as +: {driver.current_url}")
    check(driver.title.startswith(FORM_QUERY), f"the page read the query as typed: {driver.title}")
    check(FORM_ANSWER and results(driver) == FORM_ANSWER,
          f"the form's answer is the CLI's: {results(driver)} against {FORM_ANSWER}")
    figures["form_query_results"] = len(FORM_ANSWER)

    # An image uploaded by the plain form (multipart/form-data).
    identify_by_choosing(driver)

    # "More results" as a plain link.
    driver.get(f"{BASE}/search?q={BROAD}")
    driver.find_element(By.CSS_SELECTOR, "a[data-more]").click()
    wait(driver, lambda d: "page=2" in d.current_url and results(d), "the second page with its results")

    # The favourite toggle as a form, with a tag.
    driver.get(f"{BASE}/936")
    driver.find_element(By.CSS_SELECTOR, "form.favourite input[name=tags]").send_keys("security")
    driver.find_element(By.CSS_SELECTOR, "form.favourite button").click()
    wait(driver, lambda d: "Remove from favourites" in d.find_element(By.CSS_SELECTOR, "form.favourite button").text,
         "the favourite added by the form")
    check(driver.current_url == f"{BASE}/936", f"back on the comic: {driver.current_url}")

    # Every link of every page, followed.
    links = set()
    for path in ["/", f"/search?q={QUERY}", f"/{TARGET}", "/936", "/favourites", "/favourites?tag=security", "/about",
                 "/identify"]:
        driver.get(BASE + path)
        check(driver.find_elements(By.CSS_SELECTOR, "header form[action='/search']"), f"{path} is a page")
        links.update(a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a[href]"))
    own = sorted(link.split("#")[0] for link in links if link.startswith(BASE))
    broken = []
    for link in own:
        try:
            with urllib.request.urlopen(link, timeout=HANG_GUARD) as response:
                if response.status != 200:
                    broken.append(f"{link}: {response.status}")
        except urllib.error.HTTPError as error:
            broken.append(f"{link}: {error.code}")
    check(broken == [], f"broken links: {broken}")
    figures["links_followed_without_javascript"] = len(own)
    check_console_clean(driver, " without JavaScript")


def main():
    figures = {}
    for javascript, run in [(True, with_javascript), (False, without_javascript)]:
        driver = browser(javascript)
        try:
            run(driver, figures)
        finally:
            driver.quit()
    with open(os.path.join(ARTIFACTS, "figures.json"), "w") as file:
        json.dump(figures, file, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
