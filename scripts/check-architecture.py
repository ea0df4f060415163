#!/usr/bin/env python3
"""Checks the rules of the project's layout that swift-format cannot see.

Prints one line a violation, `path:line: message` (path relative to the repository root), and
exits 1 if there is any; prints nothing and exits 0 otherwise. Python's standard library only.

Rules:
  1. Every module of this package a Swift file imports is a direct dependency of the file's
     target in Package.swift. Only this package's targets are checked: an external product may
     re-export other modules, and the compiler checks those.
  2. No front-end module (FRONT_ENDS below) imports XKCDStore or depends on it in Package.swift:
     the front ends go through XKCDKit, so the database's schema stays the store's own.
  3. No Swift file in Sources/, Tests/ or Benchmarks/ is over MAX_LINES lines (as `wc -l`
     counts them).
  4. Every repository path named in README.md and docs/*.md (in `code` or a link's target)
     exists, so a renamed or deleted file cannot stay named in the documentation.
  5. Every public or open declaration of XKCDKit (the library the front ends use) has a `///`
     documentation comment; a function's or initializer's comment documents its parameters,
     what it throws and what it returns the way swift-format's ValidateDocumentationComments
     rule asks (see check_documentation), so turning that rule on for XKCDKit finds nothing new.

Usage: scripts/check-architecture.py [--root DIR]   (run by `make lint`)
"""

import argparse
import os
import re
import sys
from pathlib import Path

# The modules a person runs (commands, the REPL, the server): they use the library (XKCDKit),
# never the database directly. Test targets are not front ends.
FRONT_ENDS = [
    "xkcd-search", "XKCDCommandLine", "XKCDREPL", "XKCDServer", "XKCDServeCommand",
    "XKCDIndexCommand", "XKCDImageCommand",
]
STORE = "XKCDStore"
DOCUMENTED_MODULE = "XKCDKit"
MAX_LINES = 500
LINE_COUNTED = ["Sources", "Tests", "Benchmarks"]

# Rule 4: what a name in the documentation must look like to be taken as a repository path.
PATH_EXTENSIONS = (".swift", ".md", ".py", ".sh", ".tsv", ".json", ".mustache", ".css", ".js",
                   ".txt", ".yml", ".c", ".h")
# Names that look like paths but are made when the program runs, is built or installed, or are
# not files at all. Each is a deliberate exception; a path of the repository never goes here.
NOT_REPOSITORY_PATHS = {
    # Build products: SwiftPM's resource bundle of XKCDServer.
    "xkcd-search_XKCDServer.resources/Web",
    # Where `make install` puts things (PREFIX, DESTDIR) and the model's cache (`make model`).
    "bin/xkcd-search", "bin/xkcd-search-index", "bin/xkcd-search-image", "bin/xkcd-search-serve",
    "PREFIX/bin", "PREFIX/share", "MODEL_CACHE/model/",
    # The files of the sentence-embedding model (docs/semantic-search.md), made by
    # scripts/convert-model.py or found in the downloaded model, and the model's identities.
    "vocab.txt", "config.json", "modules.json", "sentence_bert_config.json", "tokenizer_config.json",
    "special_tokens_map.json", "1_Pooling/config.json", "PROVENANCE.md",
    "all-MiniLM-L6-v2/int8/c05d855a2e59", "all-MiniLM-L6-v2/mixed/7b37d07b5800",
    # The layout of a mirror (`--mirror DIR`) and of explainxkcd's API, as the indexer reads them.
    "xkcd/N/info.0.json", "explainxkcd/api/N.json",
    # What the browser test writes (docs/web.md).
    "figures.json",
    # Words of a query, not paths (docs/ranking.md).
    "i/o", "node.js",
    # GRDB's folders, named as the model for XKCDStore's (docs/architecture.md), and the pattern
    # of an extension's file name there, `Topic` standing for any topic.
    "Core/", "FTS/", "Record/", "ComicDatabase+Topic.swift", "SearchView+Topic.swift",
}
# Prefixes of things made at run or install time: absolute paths, the build directory, the
# XDG directories, and web addresses written without their scheme.
NOT_REPOSITORY_PREFIXES = ("/", ".build/", "~/.", ".local/", ".cache/", "share/xkcd-search",
                           "xkcd.com/", "all-MiniLM-L6-v2/")
MIME_TYPE = re.compile(r"^(text|image|application|multipart|audio|video|font)/[\w.+-]+$")

# A Swift import: attributes, an access level, a kind (`import struct X.Y`), then the module.
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias|actor)\s+)?(\w+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the repository (default: this script's parent directory's parent)")
    root = parser.parse_args().root.resolve()
    targets = parse_package(root)
    problems = []
    problems += check_imports(root, targets)
    problems += check_front_ends(root, targets)
    problems += check_file_lengths(root)
    problems += check_documented_paths(root)
    problems += check_documentation(root, targets)
    for path, line, message in problems:
        print(f"{path}:{line}: {message}")
    return 1 if problems else 0


# --- Package.swift ---------------------------------------------------------------------------

class Target:
    def __init__(self, name, kind, line, dependencies, path):
        self.name, self.kind, self.line = name, kind, line
        self.dependencies = dependencies  # {target name: line in Package.swift}; no products
        self.path = path  # the sources' directory, relative to the root

    @property
    def module(self):
        # SwiftPM's module name: what is not an identifier character becomes `_`.
        return re.sub(r"\W", "_", self.name)


def without_comments(text):
    """Blanks `//` and `/* */` comments outside string literals, keeping offsets and lines."""
    out, i, in_string = list(text), 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"' or c == "\n":
                in_string = False
        elif c == '"':
            in_string = True
        elif text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i) + 2
            end = len(text) if end < 2 else end
            for j in range(i, end):
                out[j] = "\n" if text[j] == "\n" else " "
            i = end
            continue
        i += 1
    return "".join(out)


def outside_strings(text, start=0):
    """Each character of `text` from `start` that is outside a string literal, with the depth
    of brackets around it (after it, for an opening one): (index, character, depth)."""
    depth, i, in_string = 0, start, False
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1  # `\(` of an interpolation is skipped with its parenthesis
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        else:
            depth += (c in "([{") - (c in ")]}")
            yield i, c, depth
        i += 1


def closing(text, start):
    """The index of the bracket that closes the one at `start`, string literals skipped."""
    for i, c, depth in outside_strings(text, start):
        if c in ")]}" and depth == 0:
            return i
    raise ValueError(f"unbalanced bracket at offset {start}")


def top_level_items(text):
    """`text` split at its commas that are not inside brackets or strings: (offset, item)."""
    items, start = [], 0
    for i, c, depth in outside_strings(text):
        if c == "," and depth == 0:
            items.append((start, text[start:i]))
            start = i + 1
    items.append((start, text[start:]))
    return [(offset + len(item) - len(item.lstrip()), item.strip()) for offset, item in items if item.strip()]


def parse_package(root):
    """The targets of Package.swift. Variables and settings are read past, not evaluated."""
    text = without_comments((root / "Package.swift").read_text())
    line_at = lambda offset: text.count("\n", 0, offset) + 1
    targets, position = {}, 0
    declaration = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary|binaryTarget|macro)\s*\(")
    while match := declaration.search(text, position):
        end = closing(text, match.end() - 1)
        body_start = match.end()
        arguments = dict()
        for offset, item in top_level_items(text[body_start:end]):
            label = re.match(r"(\w+)\s*:\s*", item)
            if label:
                arguments[label.group(1)] = (body_start + offset + label.end(), item[label.end():])
        name = re.fullmatch(r'"([^"]+)"', arguments["name"][1]).group(1)
        dependencies = {}
        if "dependencies" in arguments:
            list_start, list_text = arguments["dependencies"]
            for offset, item in top_level_items(list_text.strip()[1:-1]):
                if item.startswith(".product"):
                    continue  # another package's module
                dependency = re.match(r'"([^"]+)"', item) or re.search(r'name:\s*"([^"]+)"', item)
                dependencies[dependency.group(1)] = line_at(list_start + 1 + offset)
        if "path" in arguments:
            path = re.fullmatch(r'"([^"]+)"', arguments["path"][1]).group(1)
        else:
            path = ("Tests/" if match.group(1) == "testTarget" else "Sources/") + name
        targets[name] = Target(name, match.group(1), line_at(match.start()), dependencies, path)
        position = end  # a `.target(name:)` inside a dependency list is not a declaration
    return targets


# --- Swift sources ---------------------------------------------------------------------------

def swift_files(directory):
    # Hidden directories (`.build` of the benchmarks' package among them) hold no sources.
    return sorted(p for p in directory.rglob("*.swift")
                  if not any(part.startswith(".") for part in p.relative_to(directory).parts))


def code_lines(path):
    """(line number, line) of a Swift file outside multi-line string literals and block comments,
    where an `import` written in a test's fixture text would otherwise look like one."""
    in_string = in_comment = False
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        was_inside = in_string or in_comment
        in_string ^= line.count('"""') % 2 == 1
        if not in_string and "/*" in line and not line.lstrip().startswith("//"):
            in_comment = "*/" not in line.split("/*", 1)[1]
        elif in_comment and "*/" in line:
            in_comment, was_inside = False, True
        if not was_inside:
            yield number, line


def imports(path):
    for number, line in code_lines(path):
        if match := IMPORT.match(line):
            yield number, match.group(1)


def check_imports(root, targets):
    """Rule 1. A module reached only through another dependency builds today by accident: it
    breaks when that dependency is dropped, and hides what the target really uses."""
    modules = {target.module: target for target in targets.values()}
    problems = []
    for target in targets.values():
        for file in swift_files(root / target.path):
            for line, module in imports(file):
                imported = modules.get(module)
                if imported and imported is not target and imported.name not in target.dependencies:
                    problems.append((file.relative_to(root), line,
                                     f"imports {module}, which Package.swift does not list as a "
                                     f"dependency of {target.name}"))
    return problems


def check_front_ends(root, targets):
    """Rule 2. The front ends share one way to the data (XKCDKit), so the schema and its queries
    can change in XKCDStore and XKCDKit alone."""
    problems = []
    for name in FRONT_ENDS:
        target = targets.get(name)
        if target is None:  # a renamed front end would otherwise silently leave the rule
            script = Path(__file__).resolve()
            problems.append((script.relative_to(root) if script.is_relative_to(root) else script, 1,
                             f"FRONT_ENDS names {name}, which Package.swift does not declare"))
            continue
        if STORE in target.dependencies:
            problems.append((Path("Package.swift"), target.dependencies[STORE],
                             f"front end {name} depends on {STORE}; go through XKCDKit"))
        for file in swift_files(root / target.path):
            for line, module in imports(file):
                if module == STORE:
                    problems.append((file.relative_to(root), line,
                                     f"front end {name} imports {STORE}; go through XKCDKit"))
    return problems


def check_file_lengths(root):
    """Rule 3. A file past 500 lines holds more than one thing; the line named is the first one
    past the limit."""
    problems = []
    for top in LINE_COUNTED:
        for file in swift_files(root / top):
            count = file.read_bytes().count(b"\n")  # as `wc -l`
            if count > MAX_LINES:
                problems.append((file.relative_to(root), MAX_LINES + 1,
                                 f"{count} lines, more than {MAX_LINES}: split the file"))
    return problems


# --- Documentation ---------------------------------------------------------------------------

def path_candidates(line):
    """The names in `code` and in link targets of a line of Markdown that look like paths."""
    names = [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", line)]
    names += [m.group(1) for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line)]
    for name in names:
        if ("/" not in name and not name.endswith(PATH_EXTENSIONS)) or " " in name or "://" in name:
            continue
        # Options, home and variable paths, placeholders, patterns, elisions and settings (`a=b`).
        if name.startswith(("-", "~", "$", "<")) or any(s in name for s in ("*", "{", "<", "…", "...", "=")):
            continue
        yield name


def check_documented_paths(root):
    """Rule 4. A path is looked for where a reader would: from the root, from the document's own
    directory, in a module's or a test target's directory (docs name `Database/ComicDatabase.swift`
    inside the module they describe), beside the repository (`../shared/…`). A bare file name
    (`BM25F.swift`) is found anywhere in the repository, and `Target/Suite[/test]` (a
    `swift test --filter`) when the test target declares the suite."""
    bases = [root, root / "Sources", root / "Tests"]
    bases += sorted(p for p in (root / "Sources").iterdir() if p.is_dir())
    bases += sorted(p for p in (root / "Tests").iterdir() if p.is_dir())
    shared = root.parent / "shared"  # the comics and sets kept beside the repository
    file_names = set()
    for top in (root, shared):
        for directory, subdirectories, files in os.walk(top):
            subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]  # .git, .build
            file_names.update(subdirectories + files)
    problems = []
    for document in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        fenced = False
        for number, line in enumerate(document.read_text().splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced  # a code block's commands and output are not names of files
            if fenced or line.lstrip().startswith("```"):
                continue
            for name in path_candidates(line):
                path = re.sub(r"(:\d+(-\d+)?|#[\w-]*)$", "", name)
                if path in NOT_REPOSITORY_PATHS or path.startswith(NOT_REPOSITORY_PREFIXES) or MIME_TYPE.match(path):
                    continue
                if any((base / path).exists() for base in [document.parent] + bases) or (
                        path.startswith("shared/") and (root.parent / path).exists()):
                    continue
                if "/" not in path.rstrip("/") and path.rstrip("/") in file_names:
                    continue
                if is_test_filter(root, path):
                    continue
                # The shared files beside the repository are not part of a clone: where they are
                # absent (a CI machine's clean clone), what may name one of them is not judged.
                if not shared.is_dir() and (path.startswith(("../shared/", "shared/")) or "/" not in path.rstrip("/")):
                    continue
                problems.append((document.relative_to(root), number, f"`{name}` names no file of the repository"))
    return problems


def is_test_filter(root, name):
    parts = name.split("/")
    tests = root / "Tests" / parts[0]
    if not tests.is_dir() or not 2 <= len(parts) <= 3:
        return False
    suite = re.compile(rf"\b(struct|class|enum|extension)\s+{re.escape(parts[1])}\b")
    return any(suite.search(f.read_text()) for f in swift_files(tests))


# --- XKCDKit's documentation comments --------------------------------------------------------

PUBLIC_DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\b(?:\s+[\w()]+)*?\s+"
    r"(func|init|subscript|var|let|struct|enum|class|actor|protocol|typealias|case|extension|import)\b")
# Any function or initializer: swift-format validates a comment whatever the access level.
FUNCTION = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:[a-z]+(?:\(\w+\))?\s+)*(func\s+[^\s(<]+|init[?!]?)\s*[(<]")


def check_documentation(root, targets):
    """Rule 5. The comments are what a front end's author reads (Xcode's Quick Help, DocC).

    Every public or open declaration has a `///` comment (enum cases and extensions aside), and
    a public function or initializer documents its parameters and, if it `throws`, its errors.
    The form is what swift-format's ValidateDocumentationComments asks (as the toolchain's
    swift-format 6.3.1 does), which it asks of any function or initializer, public or not, whose
    comment documents a parameter; so do we:
      - one parameter: `- Parameter name:`; more: `- Parameters:` with `  - name:` items; in the
        signature's order, by internal name (`_ value: Int` and `label value: Int` are `value`);
      - `- Throws:` exactly when it `throws` (typed throws too; either way for `rethrows`);
      - `- Returns:` exactly when it returns something other than Void or Never.
    Subscripts need a comment, but their parameters are checked by neither."""
    target = targets.get(DOCUMENTED_MODULE)
    problems = []
    for file in swift_files(root / target.path) if target else []:
        lines = file.read_text().splitlines()
        for index, line in enumerate(lines):
            public = PUBLIC_DECLARATION.match(line.strip())
            if public and public.group(1) in ("case", "extension", "import"):
                public = None
            function = FUNCTION.match(line.strip())
            if not public and not function:
                continue
            comment = documentation_comment(lines, index)
            where = (file.relative_to(root), index + 1)
            if public and not comment:
                problems.append(where + (f"public {public.group(1)} has no `///` documentation comment",))
            elif function and comment:
                name = function.group(1).split()[-1]
                problems += [where + (f"{name}: {message}",)
                             for message in signature_problems(declaration_text(lines, index), comment, bool(public))]
    return problems


def documentation_comment(lines, index):
    """The `///` lines just above a declaration, over its attributes; [] if there are none."""
    index -= 1
    while index >= 0 and lines[index].strip().startswith("@"):
        index -= 1
    comment = []
    while index >= 0 and lines[index].strip().startswith("///"):
        comment.insert(0, lines[index].strip()[3:])
        index -= 1
    return comment


def declaration_text(lines, index):
    """A declaration from its first line up to its body's `{` (or its end)."""
    text = ""
    for line in lines[index:]:
        text += " " + line.split("//", 1)[0].strip()
        parameters = re.search(r"\b(?:func\s+\S+?|init[?!]?)\s*(<[^(]*>)?\s*\(", text)
        if parameters:
            try:
                after = text[closing(text, parameters.end() - 1) + 1:]
            except ValueError:
                continue  # the parameters go on
            if "{" in after or not after.strip().endswith(("->", "throws", "async", ",", "where", "&")):
                return text
    return text


def signature_problems(signature, comment, public):
    opening = re.search(r"\b(?:func\s+\S+?|init[?!]?)\s*(<[^(]*>)?\s*\(", signature)
    end = closing(signature, opening.end() - 1)
    after = signature[end + 1:].split("{", 1)[0]
    names = []
    for _, parameter in top_level_items(signature[opening.end():end]):
        labels = re.sub(r"@\w+(\([^)]*\))?\s*", "", parameter.split(":", 1)[0]).split()
        if labels and labels[-1] != "_":
            names.append(labels[-1])  # the internal name, as swift-format reads it
    text = "\n".join(comment)
    section = lambda title: re.search(rf"^\s*-\s*{title}", text, re.I | re.M)
    singular = re.findall(r"^\s*-\s*parameter\s+(\w+)\s*:", text, re.I | re.M)
    plural = section("parameters\\s*:")
    listed = re.findall(r"^\s{2,}-\s*(\w+)\s*:", text[plural.end():], re.M) if plural else []
    throws = re.search(r"\bthrows\b", after)
    returns = re.search(r"->\s*(.+?)\s*(\bwhere\b|$)", after)
    has_throws, has_returns = section("throws\\s*:"), section("returns\\s*:")
    problems = []
    if public and throws and not has_throws:
        problems.append("add a `- Throws:` line")
    # A public function must document its parameters, and then swift-format reads the comment
    # whole; a comment that documents a parameter is read whole whatever the access level.
    if not (singular or plural or (public and names)):
        return problems
    if len(names) == 1 and (plural or singular != names):
        problems.append(f"document the parameter as `- Parameter {names[0]}:`")
    elif len(names) > 1 and (singular or listed[:len(names)] != names):
        problems.append("document the parameters as `- Parameters:` with `  - name:` items, in order: "
                        + ", ".join(names))
    elif not names:
        problems.append("remove the parameters' documentation: it has none")
    if throws and not has_throws and not public:
        problems.append("add a `- Throws:` line")
    elif has_throws and not throws and not re.search(r"\brethrows\b", after):
        problems.append("remove the `- Throws:` line: it does not throw")
    if returns and returns.group(1).strip() not in ("Void", "()", "Never") and not has_returns:
        problems.append("add a `- Returns:` line")
    elif has_returns and not returns:
        problems.append("remove the `- Returns:` line: it returns nothing")
    return problems


if __name__ == "__main__":
    sys.exit(main())
