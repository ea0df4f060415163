import json, re, subprocess
r = json.load(open("refs.json"))
ess = set(open("def_FoundationEssentials.txt").read().split())
core = set(subprocess.run("nm -g --defined-only /opt/swift/usr/lib/swift_static/linux/libswiftCore.a 2>/dev/null | awk 'NF>=3{print $3}'", shell=True, capture_output=True, text=True).stdout.split())
owned = re.compile(r"^\$s(10Foundation|30FoundationInternationalization|20FoundationNetworking|13FoundationXML)(?!Essentials)")
out = {}
for mod, hits in r.items():
    syms = set()
    for lib, v in hits.items():
        for s in v:
            if s in ess or s in core: continue
            if owned.match(s) or re.search(r"(10Foundation|30FoundationInternationalization|20FoundationNetworking)E", s) or s.startswith("CF") or s.startswith("_CF") or s.startswith("$sSo"): syms.add(s)
    syms = {s for s in syms if not s.startswith("$sSo")}
    if syms: out[mod] = sorted(syms)
for mod, syms in sorted(out.items(), key=lambda x: -len(x[1])):
    dem = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(syms[:400]), capture_output=True, text=True).stdout.splitlines()
    names = sorted({re.sub(r"\(.*", "", d).replace("Foundation.", "")[:60] for d in dem})
    print(f"{mod} ({len(syms)}): " + "; ".join(names[:18]) + (" ..." if len(names) > 18 else ""))
json.dump(out, open("refs_owned.json", "w"))
