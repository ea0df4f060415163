"""Sizes of a binary's symbols (nm -S) grouped by Swift module (from the mangled name) or C library prefix."""
import re, subprocess, sys
from collections import defaultdict
path = sys.argv[1]
out = subprocess.run(["nm", "-S", "--size-sort", path], capture_output=True, text=True).stdout
groups = defaultdict(int); kinds = defaultdict(int)
C = [("sqlite3", "SQLite (C)"), ("stbi", "stb_image (C)"), ("c_nio_", "swift-nio C shims"), ("CNIO", "swift-nio C shims"),
     ("icu", "ICU"), ("u_", "ICU"), ("ucol", "ICU"), ("ubrk", "ICU"), ("el_", "libedit"), ("tok_", "libedit"), ("hist", "libedit"),
     ("_ZN", "C++ (libstdc++ etc.)"), ("_ZL", "C++ static"), ("_ZT", "C++ (libstdc++ etc.)"), ("swift_", "Swift runtime"), ("_swift", "Swift runtime"),
     ("xkcd_", "project C targets"), ("chafa", "chafa"), ("curl", "curl shim"), ("xml", "libxml2 shim")]
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 4: continue
    size = int(parts[1], 16); kind = parts[2]; name = parts[3]
    m = re.match(r"^\$s(\d+)([A-Za-z_0-9]+)", name)
    if name.startswith("$ss") or name.startswith("$sS"): g = "Swift stdlib (specialisations)"
    elif m:
        n = int(m.group(1)); g = m.group(2)[:n]
    elif name.startswith("$s"): g = "Swift other"
    else:
        g = next((lab for p, lab in C if name.startswith(p)), "other C")
    groups[g] += size; kinds[(g, kind.lower() in "tw")] += size
total = sum(groups.values())
print(f"total symbol bytes {total/1e6:.2f} MB")
for g, s in sorted(groups.items(), key=lambda x: -x[1])[:45]:
    print(f"{g:40s} {s/1e6:7.2f} MB  (code {kinds[(g, True)]/1e6:6.2f})")
