// xkcd-search's only script. The pages work without it; it adds live search with suggestions,
// batch loading, keys, sharing and favourites without a reload. No framework, no build step.
'use strict';
(() => {
  const box = document.getElementById('q');
  const results = document.getElementById('results');
  let timer = 0;
  let searching = null;
  let suggesting = null;
  let lastKeystroke = 0;

  // Another page of ours, parsed: its markup is the server's, escaped by its templates.
  async function page(url, signal) {
    const response = await fetch(url, { signal, headers: { Accept: 'text/html' } });
    return new DOMParser().parseFromString(await response.text(), 'text/html');
  }

  function quietly(error) {
    if (error.name !== 'AbortError') console.info('xkcd-search:', error.message);
  }

  async function search(text) {
    if (searching) searching.abort();
    searching = new AbortController();
    const url = '/search?q=' + encodeURIComponent(text);
    try {
      const fresh = (await page(url, searching.signal)).getElementById('results');
      results.replaceChildren(...Array.from(fresh.childNodes));
      // Keystroke to results drawn, debounce included: docs/web.md reads it in the browser test.
      performance.measure('xkcd-results', { start: lastKeystroke, end: performance.now() });
      history.replaceState(null, '', url);
      watchMore();
    } catch (error) {
      quietly(error);
    }
  }

  async function suggest(text) {
    if (suggesting) suggesting.abort();
    suggesting = new AbortController();
    try {
      const response = await fetch('/api/suggest?q=' + encodeURIComponent(text), { signal: suggesting.signal });
      if (!response.ok) return;
      const list = document.getElementById('suggestions');
      list.replaceChildren(...(await response.json()).suggestions.map((value) => new Option(value)));
    } catch (error) {
      quietly(error);
    }
  }

  if (box && results) {
    box.addEventListener('input', () => {
      lastKeystroke = performance.now();
      clearTimeout(timer);
      const text = box.value;
      if (!text.trim()) {
        if (searching) searching.abort();
        results.replaceChildren();
        // The address follows the box: an empty box is the empty search page.
        if (location.pathname === '/search') history.replaceState(null, '', '/search');
        return;
      }
      // A quote still open is a phrase being typed, not a mistake to report: the results stay
      // as they are until it closes (Enter still searches it, and says what is wrong).
      if ((text.match(/"/g) || []).length % 2 === 1) return;
      timer = setTimeout(() => { search(text); suggest(text); }, 120);
    });
  }

  // "More results" loads the next batch in place, when clicked or when scrolled into view.
  let loading = false;
  const observer = 'IntersectionObserver' in window
    ? new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); })
    : null;

  async function more() {
    const link = results && results.querySelector('a[data-more]');
    if (!link || loading) return;
    loading = true;
    try {
      const fresh = await page(link.href);
      const list = results.querySelector('ol.results');
      list.append(...Array.from(fresh.querySelectorAll('ol.results > li')));
      const next = fresh.querySelector('p.more');
      link.closest('p.more').replaceWith(...(next ? [next] : []));
      watchMore();
    } catch (error) {
      quietly(error);
    } finally {
      loading = false;
    }
  }

  function watchMore() {
    const link = results && results.querySelector('a[data-more]');
    if (!link) return;
    link.addEventListener('click', (event) => { event.preventDefault(); more(); });
    if (observer) { observer.disconnect(); observer.observe(link); }
  }
  watchMore();

  // Favourites through the JSON API, without a reload; the form posts as without JavaScript
  // when the API refuses (read-only) or is not there.
  const form = document.querySelector('form.favourite');
  if (form) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const action = form.elements.action;
      const adding = action.value === 'add';
      const tags = form.elements.tags.value.split(/[\s,]+/).filter(Boolean);
      try {
        const response = await fetch('/api/favourites/' + form.dataset.comic, {
          method: adding ? 'PUT' : 'DELETE',
          headers: { 'Content-Type': 'application/json' },
          body: adding ? JSON.stringify({ tags }) : undefined,
        });
        if (!response.ok) { form.submit(); return; }
        action.value = adding ? 'remove' : 'add';
        const button = form.querySelector('button');
        button.setAttribute('aria-pressed', String(adding));
        button.textContent = adding ? '★ Remove from favourites' : '☆ Add to favourites';
      } catch (error) {
        form.submit();
      }
    });
  }

  // Which xkcd is this: the image chosen, dropped on the page or pasted (Ctrl-V) is sent to the
  // JSON API and the comics that fit are listed; the form still posts as without JavaScript.
  const identify = document.querySelector('form.identify');
  if (identify) {
    const found = document.getElementById('identified');
    const picker = identify.elements.image;
    identify.querySelector('p.drop').hidden = false;

    // One item of the list, built from text nodes only: the API's words are data, not markup.
    function item(comic) {
      const li = document.createElement('li');
      li.className = 'result';
      const link = document.createElement('a');
      link.href = '/' + comic.num;
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = '#' + comic.num;
      const title = document.createElement('span');
      title.className = 'title';
      title.textContent = comic.title;
      link.append(num, ' ', title);
      const meta = document.createElement('span');
      meta.className = 'meta';
      meta.textContent = comic.date;
      const reasons = document.createElement('ul');
      reasons.className = 'reasons';
      const why = (comic.reasons.image ? ['the image matches'] : [])
        .concat(comic.reasons.words.length ? ['holds the words read: ' + comic.reasons.words.join(', ')] : []);
      for (const text of why) {
        const reason = document.createElement('li');
        reason.textContent = text;
        reasons.append(reason);
      }
      li.append(link, ' ', meta, reasons);
      return li;
    }

    function paragraph(className, text) {
      const p = document.createElement('p');
      p.className = className;
      p.textContent = text;
      return p;
    }

    async function send(file) {
      found.replaceChildren(paragraph('count', 'Reading the image…'));
      try {
        const response = await fetch('/api/identify?limit=10', {
          method: 'POST',
          headers: { 'Content-Type': file.type && file.type.startsWith('image/') ? file.type : 'application/octet-stream' },
          body: file,
        });
        const answer = await response.json();
        if (!response.ok) {
          const problem = paragraph('problem', answer.error ? answer.error.message : 'the image could not be read');
          problem.setAttribute('role', 'alert');
          found.replaceChildren(problem);
          return;
        }
        const read = answer.text.split(/\s+/).filter(Boolean).join(' ');
        const nodes = [read ? paragraph('read', 'Read in the image: “' + read + '”')
          : paragraph('read', 'No words could be read in the image.')];
        if (answer.results.length === 0) {
          nodes.push(paragraph('count', 'No comic fits the words read or the picture.'));
        } else {
          const list = document.createElement('ol');
          list.className = 'results';
          list.append(...answer.results.map(item));
          nodes.push(list);
        }
        found.replaceChildren(...nodes);
      } catch (error) {
        quietly(error);
        found.replaceChildren(paragraph('problem', 'the server could not be reached'));
      }
    }

    identify.addEventListener('submit', (event) => {
      if (!picker.files.length) return;
      event.preventDefault();
      send(picker.files[0]);
    });
    picker.addEventListener('change', () => { if (picker.files.length) send(picker.files[0]); });
    document.addEventListener('dragover', (event) => { event.preventDefault(); });
    document.addEventListener('drop', (event) => {
      const file = event.dataTransfer && Array.from(event.dataTransfer.files).find((f) => f.type.startsWith('image/'));
      if (!file) return;
      event.preventDefault();
      send(file);
    });
    document.addEventListener('paste', (event) => {
      const items = event.clipboardData ? Array.from(event.clipboardData.items) : [];
      const image = items.find((entry) => entry.kind === 'file' && entry.type.startsWith('image/'));
      if (!image) return;
      event.preventDefault();
      send(image.getAsFile());
    });
  }

  // Share: the system's share sheet where the browser has one, else the link copied.
  const share = document.querySelector('button[data-share]');
  if (share && (navigator.share || navigator.clipboard)) {
    share.hidden = false;
    share.addEventListener('click', async () => {
      const url = share.dataset.share;
      try {
        if (navigator.share) {
          await navigator.share({ title: share.dataset.title, url });
        } else {
          await navigator.clipboard.writeText(url);
          share.textContent = 'Link copied';
        }
      } catch (error) {
        quietly(error);
      }
    });
  }

  // An image the server could not fetch (offline, or imgs.xkcd.com down) is said in words, as
  // the page says it once the server knows, rather than drawn as a broken picture.
  const picture = document.querySelector('.comic .frame img');
  if (picture) {
    const sayMissing = () => {
      const figure = picture.closest('figure');
      const notice = document.createElement('p');
      notice.className = 'notice';
      const original = document.createElement('a');
      original.href = 'https://xkcd.com/' + picture.closest('.comic').dataset.comic + '/';
      original.textContent = 'it on xkcd.com';
      notice.append('Its image could not be fetched: see ', original, '.');
      figure.querySelector('.frame').replaceWith(notice);
      const full = document.querySelector('.comic p.full');
      if (full) full.remove();
    };
    // Loaded before this ran (complete), an image that failed has no width.
    if (picture.complete && picture.naturalWidth === 0) sayMissing();
    else picture.addEventListener('error', sayMissing);
  }

  // Keys: ← → previous and next, r random, / the search box, f favourite.
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target.closest && target.closest('input, textarea, select, [contenteditable]')) return;
    // Any key may come here (a quote, a backslash): escaped, it cannot break the selector.
    const link = document.querySelector('a[data-key="' + CSS.escape(event.key) + '"]');
    if (link) {
      event.preventDefault();
      location.href = link.href;
    } else if (event.key === '/' && box) {
      event.preventDefault();
      box.focus();
      box.select();
    } else if (event.key === 'f' && form) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
})();
