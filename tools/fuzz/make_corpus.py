#!/usr/bin/env python3
"""Writes the seed corpora tests/data/fuzz/corpus/<target>/ (standard library only).

Seeds are the committed test fixtures (small ones whole, entries and configs cut out of the larger
ones) plus a few hand-made inputs for paths the fixtures do not reach (zip64, every safetensors
dtype, CTranslate2 versions 4-5 and aliases, CRLF and NUL text). Run it again after changing a
fixture; the output is deterministic. Keep the corpus small: libFuzzer grows its own copy.
"""
import json
import os
import shutil
import struct
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
OUT = DATA / "fuzz" / "corpus"


def npy(descr, shape, payload, version=1):
    """A .npy buffer, header padded to 64 bytes like numpy."""
    dims = "".join(f"{d}, " for d in shape).rstrip(" ") if len(shape) == 1 else ", ".join(map(str, shape))
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    size_bytes = 2 if version == 1 else 4
    pad = -(6 + 2 + size_bytes + len(header) + 1) % 64
    header = (header + " " * pad + "\n").encode()
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + payload


def npy_entries(path):
    """(name, bytes) of every entry of an npz fixture."""
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def npy_payload_text(entry):
    """The text of a special:model.yml entry (an int8 array padded with NULs)."""
    header_len = struct.unpack("<H", entry[8:10])[0] if entry[6] == 1 else struct.unpack("<I", entry[8:12])[0]
    start = 10 + header_len if entry[6] == 1 else 12 + header_len
    return entry[start:].split(b"\0")[0]


def write(target, name, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def zip_bytes(entries, compress=zipfile.ZIP_STORED, zip64=False):
    path = OUT / "tmp.zip"
    with zipfile.ZipFile(path, "w", compression=compress) as z:
        for name, data in entries:
            with z.open(zipfile.ZipInfo(name), "w", force_zip64=zip64) as f:
                f.write(data)
    data = path.read_bytes()
    path.unlink()
    return data


def safetensors(tensors, metadata=None):
    header, blob = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + blob


def ct2_string(s):
    b = s.encode() + b"\0"
    return struct.pack("<H", len(b)) + b


def ct2_model(version, variables, aliases=()):
    out = struct.pack("<I", version)
    if version >= 2:
        out += ct2_string("TransformerSpec") + struct.pack("<I", 1)
    out += struct.pack("<I", len(variables))
    for name, shape, type_id, item, data in variables:
        out += ct2_string(name) + bytes([len(shape)]) + b"".join(struct.pack("<I", d) for d in shape)
        if version >= 4:
            out += bytes([type_id]) + struct.pack("<I", len(data))
        else:
            out += bytes([item]) + struct.pack("<I", len(data) // item)
        out += data
    if version >= 3:
        out += struct.pack("<I", len(aliases))
        for alias, target in aliases:
            out += ct2_string(alias) + ct2_string(target)
    return out


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    model_npzs = sorted((DATA / "models").glob("marian-*/*.npz")) + sorted((DATA / "broken").glob("*.npz"))

    # npy: every entry of the small npz fixtures, plus each supported (and one rejected) dtype.
    for path in sorted((DATA / "npz").glob("*.npz")):
        for name, data in npy_entries(path):
            write("npy", f"{path.stem}-{name.replace(':', '_')}", data)
    write("npy", "scalar-v3-f2.npy", npy("<f2", (), b"\x00\x3c", version=3))
    write("npy", "i1-2x2.npy", npy("|i1", (2, 2), b"\x01\xff\x02\xfe"))
    write("npy", "empty-0x5.npy", npy("<f4", (0, 5), b""))
    write("npy", "py2-long.npy", npy("<i4", (1,), b"\x07\0\0\0").replace(b"(1,)", b"(1L,)"))

    # npz: the small fixtures whole, and zip64 / deflate variants of a two-entry archive.
    for path in sorted((DATA / "npz").glob("*.npz")) + [DATA / "golden" / "positional.npz"]:
        write("npz", path.name, path.read_bytes())
    entries = [("w.npy", npy("<f4", (2, 2), struct.pack("<4f", 1, 2, 3, 4))),
               ("special:model.yml.npy", npy("|i1", (16,), b"type: transformer\0"[:16]))]
    write("npz", "zip64.npz", zip_bytes(entries, zip64=True))
    write("npz", "zip64-deflate.npz", zip_bytes(entries, zipfile.ZIP_DEFLATED, zip64=True))
    write("npz", "empty.npz", zip_bytes([]))

    # safetensors: the fixtures, and one tensor of each readable dtype with metadata.
    for path in sorted((DATA / "safetensors").glob("*.safetensors")):
        write("safetensors", path.name, path.read_bytes())
    write("safetensors", "dtypes.safetensors", safetensors(
        [("f32", "F32", [2], struct.pack("<2f", 1, -2)), ("f16", "F16", [1, 2], b"\x00\x3c\x00\xc0"),
         ("bf16", "BF16", [2], b"\x80\x3f\x00\xc0"), ("i32", "I32", [], struct.pack("<i", -3)),
         ("i64", "I64", [1], struct.pack("<q", 5)), ("u8", "U8", [3], b"abc"),
         ("empty", "F32", [0, 4], b"")], metadata={"format": "pt"}))

    # ct2_model: the fixtures, and versions 4 and 5 with an alias chain and an implied _scale alias.
    for path in sorted((DATA / "ct2").glob("*.bin")):
        write("ct2_model", path.name, path.read_bytes())
    variables = [("w", [2, 2], 1, 1, b"\x01\x02\x03\x04"), ("w_scale", [2], 0, 4, struct.pack("<2f", 0.5, 2)),
                 ("heads", [], 3, 4, struct.pack("<i", 8)), ("eps", [], 4, 2, b"\x00\x3c"),
                 ("unk_token", [5], 1, 1, b"<unk>"), ("h", [2], 5, 2, b"\x80\x3f\x00\xc0"),
                 ("s", [2], 2, 2, b"\x01\x00\xff\xff")]
    aliases = [("a", "w"), ("b", "a")]
    write("ct2_model", "model_v4.bin", ct2_model(4, variables, aliases))
    write("ct2_model", "model_v5.bin", ct2_model(5, variables[:3], aliases[:1]))

    # model_yml: special:model.yml of each Marian fixture model (broken ones included).
    for path in model_npzs:
        for name, data in npy_entries(path):
            if name.startswith("special:model.yml"):
                write("model_yml", f"{path.parent.name if path.parent.name != 'broken' else path.stem}.yml",
                      npy_payload_text(data))

    # decoder_yml: the fixture models' decoder.yml and the shipped option profiles.
    for path in sorted((DATA / "models").glob("*/decoder.yml")):
        write("decoder_yml", f"{path.parent.name}.yml", path.read_bytes())
    for path in sorted((ROOT / "configs").glob("*.yml")):
        write("decoder_yml", f"configs-{path.name}", path.read_bytes())
    write("decoder_yml", "absolute.yml", "models: [/nonexistent/model.npz]\nvocabs: [a.spm, b.spm]\n")

    # vocab_yml: every YAML vocabulary fixture.
    for path in sorted(DATA.glob("**/*.yml")):
        if path.name.endswith("vocab.yml") and "fuzz" not in path.parts:
            write("vocab_yml", f"{path.parent.name}-{path.name}", path.read_bytes())
    write("vocab_yml", "complex-keys.yml", '? "multi\n  line"\n: 0\n? plain\n  folded\n: 1\n'
                                           '"\\x41\\u00e9\\U0001F600\\N\\_": 2\n\'it\'\'s\': 3\n')

    # vocab_json: objects (HF, Nematus) and a CTranslate2 token list.
    for path in sorted(DATA.glob("**/*vocab*.json")):
        if "fuzz" not in path.parts:
            write("vocab_json", f"{path.parent.name}-{path.name}", path.read_bytes())

    # line_reader: two control bytes (chunk size, window seed), then text.
    texts = {
        "lf": b"Hello world.\nSecond line\n\nlast\n",
        "crlf-no-final": b"one\r\ntwo\r\n\r\nthree",
        "nul-control": b"a\0b\n\x01\x02\x1b[0m\n\xff\xfe invalid utf-8\n",
        "cr-only": b"\r\r\n\r\nx\r",
        "long-line": b"word " * 3000 + b"\nshort\n",
        "utf8": "Grüße, 世界 🌍\n>>deu<< text\n".encode(),
    }
    for i, (name, text) in enumerate(texts.items()):
        write("line_reader", name, bytes([i * 3, i * 37]) + text)
    for path in sorted((DATA / "golden").glob("*.sources.txt"))[:2]:
        write("line_reader", path.name, b"\x05\x11" + path.read_bytes())


if __name__ == "__main__":
    main()
