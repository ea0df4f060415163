import glob, os, subprocess, collections, re
defs = {lib: set(open(f"def_{lib}.txt").read().split()) for lib in ["Foundation", "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "CoreFoundation", "_FoundationICU"]}
ess = set(open("def_FoundationEssentials.txt").read().split())
res = {}
for d in sorted(glob.glob("/work/main/.build/release/*.build")):
    mod = os.path.basename(d)[:-6]
    objs = glob.glob(d + "/**/*.o", recursive=True)
    if not objs: continue
    und = set()
    for o in objs:
        out = subprocess.run(["nm", "-u", o], capture_output=True, text=True).stdout.split()
        und.update(x for x in out if x != "U")
    hits = {lib: sorted(und & s) for lib, s in defs.items()}
    hits = {k: v for k, v in hits.items() if v}
    res[mod] = hits
    if hits or mod.startswith("XKCD") or mod == "xkcd_search":
        print(f"{mod:32s}", ", ".join(f"{k}:{len(v)}" for k, v in hits.items()) or "-- (no non-Essentials Foundation symbols)")
import json; json.dump(res, open("refs.json", "w"))
