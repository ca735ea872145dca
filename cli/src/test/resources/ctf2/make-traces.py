# Writes the hand-built CTF 2 test traces beside this script: python3 make-traces.py .
# With a second directory argument, also the CTF 1.8 twin of "strings" there (for babeltrace2).
import json, os, struct, sys, copy
RS = b'\x1e'
def frags(*fs):
    return b''.join(RS + json.dumps(f, indent=1).encode() + b'\n' for f in fs)
u = lambda n, roles=None, align=8: dict({"type": "fixed-length-unsigned-integer", "length": n, "byte-order": "little-endian", "alignment": align}, **({"roles": roles} if roles else {}))
pre = {"type": "preamble", "version": 2}
tc = {"type": "trace-class", "packet-header-field-class": {"type": "structure", "member-classes": [
    {"name": "magic", "field-class": u(32, ["packet-magic-number"])}]}}
dsc = {"type": "data-stream-class", "packet-context-field-class": {"type": "structure", "member-classes": [
    {"name": "packet_size", "field-class": u(32, ["packet-total-length"])},
    {"name": "content_size", "field-class": u(32, ["packet-content-length"])}]},
    "event-record-header-field-class": {"type": "structure", "member-classes": [
    {"name": "id", "field-class": u(8, ["event-record-class-id"])}]}}
erc = {"type": "event-record-class", "id": 0, "name": "sched_switch", "payload-field-class": {"type": "structure", "member-classes": [
    {"name": "n", "field-class": u(8)},
    {"name": "vals", "field-class": {"type": "dynamic-length-array", "element-field-class": u(8),
        "length-field-location": {"origin": "event-record-payload", "path": ["n"]}}},
    {"name": "sel", "field-class": u(8)},
    {"name": "v", "field-class": {"type": "variant", "selector-field-location": {"path": ["sel"]}, "options": [
        {"name": "a", "selector-field-ranges": [[0, 0]], "field-class": u(8)},
        {"name": "b", "selector-field-ranges": [[1, 5]], "field-class": {"type": "null-terminated-string"}}]}}]}}

def stream(sel2=0, content=None):
    ev1 = bytes([0, 2, 7, 8, 1]) + b'hi\0'
    ev2 = bytes([0, 0, sel2, 42])
    total = (12 + len(ev1) + len(ev2)) * 8
    return struct.pack('<III', 0xc1fc1fc1, total, content if content is not None else total) + ev1 + ev2

def write(name, meta, data):
    os.makedirs(name, exist_ok=True)
    open(name + '/metadata', 'wb').write(meta)
    open(name + '/stream', 'wb').write(data)

out = sys.argv[1]
os.chdir(out)
write('valid', frags(pre, tc, dsc, erc), stream())
bad = frags(pre, tc, dsc, erc).replace(b'"sched_switch",', b'"sched_switch"', 1)
write('malformed-json', bad, stream())
e = copy.deepcopy(erc); del e["payload-field-class"]["member-classes"][1]["field-class"]["element-field-class"]
write('missing-property', frags(pre, tc, dsc, e), stream())
p = dict(pre, extensions={"my.tracer": {"piano": {"keys": 88}}})
write('unknown-extension', frags(p, tc, dsc, erc), stream())
e = copy.deepcopy(erc); e["payload-field-class"]["member-classes"][1]["field-class"]["length-field-location"] = {"path": ["sel"]}
write('location-forward', frags(pre, tc, dsc, e), stream())
d = copy.deepcopy(dsc); d["packet-context-field-class"]["member-classes"].append({"name": "seq", "field-class": {"type": "dynamic-length-array", "element-field-class": u(8), "length-field-location": {"origin": "event-record-payload", "path": ["n"]}}})
write('location-outside-scope', frags(pre, tc, d, erc), stream())
write('selector-no-option', frags(pre, tc, dsc, erc), stream(sel2=9))
write('content-past-packet', frags(pre, tc, dsc, erc), stream(content=(12 + 12) * 8 + 64))

# Strings of a length in bytes; strings-ctf18 is the same data stream with CTF 1.8 metadata (text arrays), for babeltrace2.
ercs = {"type": "event-record-class", "id": 0, "name": "strs", "payload-field-class": {"type": "structure", "member-classes": [
    {"name": "name", "field-class": {"type": "static-length-string", "length": 8}},
    {"name": "n", "field-class": u(8)},
    {"name": "text", "field-class": {"type": "dynamic-length-string", "length-field-location": {"path": ["n"]}}}]}}
ev = b'bash\0xyz' + bytes([5]) + b'hello'
total = (12 + 1 + len(ev)) * 8
data = struct.pack('<III', 0xc1fc1fc1, total, total) + bytes([0]) + ev
write('strings', frags(pre, tc, dsc, ercs), data)
if len(sys.argv) > 2:
    tsdl = b'''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
stream { packet.context := struct { uint32_t packet_size; uint32_t content_size; }; event.header := struct { uint8_t id; }; };
event { name = "strs"; id = 0; stream_id = 0; fields := struct {
  integer { size = 8; align = 8; signed = false; encoding = UTF8; } name[8];
  uint8_t n;
  integer { size = 8; align = 8; signed = false; encoding = UTF8; } text[n]; }; };
'''
    write(sys.argv[2], tsdl, data)

# Booleans: false only when every bit is zero (bytes: 00 | 00 01 | 01 = one true bit, then seven false ones).
boolean = lambda n, align=8: {"type": "fixed-length-boolean", "length": n, "byte-order": "little-endian", "alignment": align}
ercb = {"type": "event-record-class", "id": 0, "name": "bools", "payload-field-class": {"type": "structure", "member-classes": [
    {"name": "f", "field-class": boolean(8)},
    {"name": "t", "field-class": boolean(16)},
    {"name": "one", "field-class": boolean(1)},
    {"name": "rest", "field-class": boolean(7, 1)}]}}
ev = bytes([0x00, 0x00, 0x01, 0x01])
total = (12 + 1 + len(ev)) * 8
write('booleans', frags(pre, tc, dsc, ercb), struct.pack('<III', 0xc1fc1fc1, total, total) + bytes([0]) + ev)
