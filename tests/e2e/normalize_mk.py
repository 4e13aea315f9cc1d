"""Normalize a generated Makefile for golden comparison: machine paths and
keys (which cover the compiler binary's digest) become placeholders."""
import re
import sys

text = open(sys.argv[1]).read()
for value, name in zip(sys.argv[2::2], sys.argv[3::2]):
    text = text.replace(value, name)
# The compile records' length counts machine paths (the cache, root, out).
text = re.sub(r"--cmds [0-9]+", "--cmds @N@", text)
text = re.sub(r"/(units|packs)/[0-9a-f]{1,2}/", r"/\1/XX/", text)
keys = {}
def full(m):
    return "@K%d@" % keys.setdefault(m.group(0), len(keys) + 1)
text = re.sub(r"[0-9a-f]{64}", full, text)

sys.stdout.write(text)
