#!/usr/bin/python3
"""Lexical shortlists: numpy/Python reference of Marian's --shortlist (text and binary) and
CTranslate2's vocabulary map (vmap.txt, use_vmap), with readers and writers of the three files.

Run with Debian's /usr/bin/python3 (python3-numpy).  Written from the sources, cited below as
repository path function (marian-nmt/marian-dev @c9f287db, the newest stored snapshot; the
shortlist code there last changed in b0b31dbd; OpenNMT/CTranslate2 v4.8.1).  The search itself
(log-softmax over the candidates only) is marian_search.beam_search(..., candidates=ids).

    import shortlist_ref as sl
    vs, vt = sl.MarianVocab.from_ref(model.src_vocab), sl.MarianVocab.from_ref(model.tgt_vocab)
    entries = sl.read_marian_text("lex.s2t", vs, vt)          # [(src_id, trg_id, prob)]
    table = sl.text_table(entries)                             # {src: {trg: prob}}, last line wins
    ids = sl.marian_candidates(table, [src_ids, ...], model.V, first=10, best=5, threshold=0.1,
                               shared=False)
    binary = sl.marian_import(entries, vs.size, first=10, best=5)   # what marian-conv writes
    sl.write_marian_binary("lex.s2t.bin", binary)
    binary = sl.read_marian_binary("lex.s2t.bin", target_vocab_size=model.V)  # checks checksum
    ids = sl.binary_candidates(binary, [src_ids, ...], model.V, shared=False)
    vmap = sl.VocabularyMap(open("vmap.txt").read(), sl.CT2Vocab(target_tokens))
    ids = sl.ct2_candidates(vmap, [source_tokens, ...], [[start_id], ...])

MARIAN TEXT SHORTLIST (`--shortlist lex.s2t [first [best [threshold]]]`, first and best default
100, threshold 0; the file is what extract_lex writes: `TARGET SOURCE PROB` per line)
  marian-dev src/data/shortlist.h LexicalShortlistGenerator:
  * load(): `while(in >> trg >> src >> prob)`: the file is a stream of whitespace-separated
    triples (line breaks are whitespace like any other; C-locale whitespace: space \\t \\n \\v \\f
    \\r); the loop ends at the first token that does not read as a float.  A triple whose src or
    trg is the string `NULL` is skipped.  Ids via the vocabularies' operator[](string): DefaultVocab
    (yml/txt, src/data/default_vocab.cpp) and SentencePieceVocab (PieceToId,
    src/data/sentencepiece_vocab.cpp) both map an unknown string to the <unk> id.
    `data_[sId][tId] = prob`: a later triple for the same pair OVERWRITES (last wins).  data_ has
    max(sId)+1 rows: generate() indexes data_[i] for every source id of the batch without a bound
    check (undefined behaviour in Marian for a source id above the largest one in the file; here
    such an id has no targets -- real lex files and the fixtures cover the last source id).
  * prune(threshold), called once after load: per source id, the (prob, tId) pairs sorted with
    std::greater<std::pair<float, WordIndex>> (prob descending, ties: HIGHER target id first);
    keep while `kept < bestNum && prob > threshold` (float32, strict), stop at the first pair
    that fails.  So prob <= threshold (and prob <= 0 with the default threshold 0) is never kept.
  * generate(batch): index set = 0..first-1 (capped at the target vocabulary size); for every
    distinct source id of the batch's source matrix (including its padding positions, which
    hold the source vocabulary's </s>: src/data/corpus_base.h SubBatch() fills gaps with
    vocab->getEosId(), since febe660b -- so: every sentence's ids incl. its </s>), the pruned
    targets and, when `shared_`, the source id itself; then `while(size % 8) insert(i++)` from
    i = first: the smallest ids >= first not yet in the set until the size is a multiple of 8
    (no upper bound in Marian: ids >= the vocabulary size would be inserted -- raised here); the
    result sorted ascending.
  * shared_: src/translator/translator.h (Translate and TranslateService) passes
    `vocabs.front() == vocabs.back()`, i.e. the source and target vocabulary FILE PATHS are
    equal (not tied-embeddings*): marian-ymlids-gelu-tied (the same vocab.yml twice) is shared,
    marian-prenorm-relu-untied (source.spm, target.spm) is not.
  createShortlistGenerator (shortlist.cpp): a file starting with BINARY_SHORTLIST_MAGIC ->
  BinaryShortlistGenerator, else a `.bin` extension -> the legacy Quicksand format (not
  modelled), else LexicalShortlistGenerator.

MARIAN BINARY SHORTLIST (marian-conv --shortlist lex.s2t first best [threshold] --vocabs src trg
--dump-shortlist lex.bin, src/command/marian_conv.cpp; Bergamot ships them as lex.*.s2t.bin)
  marian-dev src/data/shortlist.h/.cpp BinaryShortlistGenerator:
  * layout, all little-endian, no padding: Header {uint64 magic = BINARY_SHORTLIST_MAGIC =
    0xF11A48D5013417F5, uint64 checksum, uint64 firstNum, uint64 bestNum, uint64
    wordToOffsetSize, uint64 shortListsSize} (48 bytes), uint64 wordToOffset[wordToOffsetSize],
    uint32 (WordIndex) shortLists[shortListsSize].  Source id i's targets are shortLists[
    wordToOffset[i] .. wordToOffset[i+1]), sorted ascending.  wordToOffsetSize = source
    vocabulary size + 1 (import(): the table has srcVocab_->size() rows, one offset per row plus
    the end).  File size must be exactly 48 + 8 * wordToOffsetSize + 4 * shortListsSize.
  * checksum (src/common/hash.h util::hashMem<uint64_t, uint64_t>, hash_combine): over the
    (file size - 16) / 8 uint64 words after magic and checksum (integer division: with an odd
    shortListsSize the last uint32 is NOT covered), seed = 0, per word v:
    seed ^= hash(v) + 0x9e3779b9 + (seed << 6) + (seed >> 2)   (uint64 wrap-around), with
    std::hash<uint64_t> the identity (libstdc++ and libc++; MSVC's FNV-1a would give other
    checksums).  import() computes it over blob_.data()+2 words, load() checks it unless the
    second --shortlist value is 0 (`--shortlist file.bin [check]`; for a binary file
    firstNum/bestNum come from the header, not from the command line).
  * contentCheck() (with check): every wordToOffset[i] for i < wordToOffsetSize-1 must be
    < shortListsSize (STRICT: a file whose last source id(s) have an empty list is rejected as
    "shortlist indices are out of bounds"), wordToOffset[last] == shortListsSize, every target
    id < target vocabulary size.
  * import(filename, threshold) -- what marian-conv writes: the same triple loop and NULL skip,
    but `if(table[sId][tId] < prob) table[sId][tId] = prob`: duplicates keep the MAXIMUM, and
    operator[] first inserts 0, so a pair whose probs are all <= 0 is stored with 0.  Per source
    id the pairs pass `if (entry.first >= threshold)` -- entry.first is the TARGET ID, not the
    prob (a bug present since the format was introduced, 42f0b8b7, 2021): the threshold drops
    target ids < threshold (with threshold 0, the default, nothing), never low probabilities.
    Then a std::priority_queue<pair<float, WordIndex>> pops the best bestNum (prob descending,
    ties higher target id first: the same order as prune()), and each list is sorted by id.
    So the binary file stores lists pruned to bestNum but NOT by probability: it equals the
    text shortlist at threshold 0 whenever every prob is > 0 and a duplicated pair's last prob
    is its largest (true for the fixtures).
  * generate(batch): the same set as the text generator (first ids from the header's
    firstNum, each distinct source id's list, the source id itself when shared_, then the
    smallest unselected ids >= firstNum up to a multiple of 8, here bounded by the target
    vocabulary size), ascending.

CTRANSLATE2 VOCABULARY MAP (vmap.txt in the model folder, translate_batch(use_vmap=True))
  OpenNMT/CTranslate2 v4.8.1 src/vocabulary_map.cc:
  * VocabularyMap(map_file, target vocabulary): per line (ctranslate2::getline, a final \\r
    removed), character by character: before the first TAB a space extends the key and counts
    one more n-gram order (n = spaces in the key + 1), after it each space ends a target token
    (an empty token -- two spaces -- is looked up too and gives <unk>); the last token is added
    if non-empty.  Targets map with Vocabulary::to_id (unknown -> <unk>).  rules[n-1][key] =
    targets: a later line with the same key REPLACES the earlier one.  The key "" (a line
    starting with TAB) of order 1 lists targets that are always candidates; an empty line also
    writes rules[0][""] (= nothing).  Fixed candidates: unk_id, bos_id, eos_id of the target
    vocabulary (to_id of the configured unk/bos/eos tokens, <unk> when absent) + the "" targets.
  * get_candidates(source_tokens, target_prefix_ids): std::set = fixed candidates; for every
    sentence and every position i, the n-grams tokens[i..i+h] (joined with one space) for h =
    0.. while h < number of orders and i+h < length, each looked up in rules[h]; plus every id
    of target_prefix_ids; returned sorted.
  * src/models/sequence_to_sequence.cc EncoderDecoderReplica::run_translation: restrict_ids =
    get_candidates(source_features[0], target_ids) for the whole batch being run: the source
    tokens are the strings the caller passed (WITHOUT the </s> that add_source_eos appends:
    make_source_ids adds it to the ids afterwards, inside Vocabulary::to_ids), and target_ids =
    make_target_ids(target_prefix, is_prefix=true): the decoder start token id followed by the
    sentence's target prefix (translate() gives every sentence an empty prefix when none is
    given, so the start token is always a candidate).  update_output_layer(size multiple,
    restrict_ids) pads the restricted layer with dummy columns whose bias is -inf: no effect.
"""

import re
import struct

import numpy as np

F32 = np.float32
U64 = (1 << 64) - 1

# marian-dev src/data/shortlist.h
BINARY_SHORTLIST_MAGIC = 0xF11A48D5013417F5
HEADER_FORMAT = "<6Q"                     # magic, checksum, firstNum, bestNum, wordToOffsetSize, shortListsSize
HEADER_SIZE = struct.calcsize(HEADER_FORMAT)   # 48

_CWS = re.compile(r"[ \t\n\v\f\r]+")      # isspace() in the "C" locale
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


# ----------------------------------------------------------------------------------------------
# Vocabularies as the two engines look strings up
# ----------------------------------------------------------------------------------------------
class MarianVocab:
    """Marian's Vocab::operator[](string): the piece's id, <unk> for an unknown string."""

    def __init__(self, piece2id, unk, size):
        self.piece2id, self.unk, self.size = dict(piece2id), int(unk), int(size)

    @classmethod
    def from_ref(cls, v):
        """From a marian_ref.Vocab (yml / txt / spm)."""
        return cls(v.piece2id, v.unk, v.size)

    def __getitem__(self, piece):
        return self.piece2id.get(piece, self.unk)


class CT2Vocab:
    """CTranslate2's Vocabulary (src/vocabulary.cc): tokens in id order, <unk> appended when
    missing; to_id(unknown) = unk id (allow_unk defaults to true)."""

    def __init__(self, tokens, unk_token="<unk>", bos_token="<s>", eos_token="</s>"):
        self.tokens = list(tokens)
        if unk_token not in self.tokens:
            self.tokens.append(unk_token)
        self.token_to_id = {}
        for i, t in enumerate(self.tokens):
            self.token_to_id.setdefault(t, i)        # emplace: the first occurrence wins
        self.unk_token, self.bos_token, self.eos_token = unk_token, bos_token, eos_token

    @classmethod
    def from_ref(cls, v, **kw):
        """The vocabulary CTranslate2's Marian converter would register (yml tokens sorted by id;
        here also an SPM's pieces in id order)."""
        return cls([v.id2piece[i] for i in range(v.size)], **kw)

    def __len__(self):
        return len(self.tokens)

    def to_id(self, token):
        return self.token_to_id.get(token, self.token_to_id[self.unk_token])

    @property
    def unk_id(self):
        return self.to_id(self.unk_token)

    @property
    def bos_id(self):
        return self.to_id(self.bos_token)

    @property
    def eos_id(self):
        return self.to_id(self.eos_token)


# ----------------------------------------------------------------------------------------------
# Marian text shortlist
# ----------------------------------------------------------------------------------------------
def parse_marian_text(text):
    """The triples `while(in >> trg >> src >> prob)` reads: [(trg, src, float32 prob)], NULL
    triples included.  Stops at the first prob token that is not a plain decimal number (the
    stream fails there) or at an incomplete triple.  (A token with trailing characters after a
    number, e.g. `0.5x`, would be split by the C++ stream; not modelled: rejected as a stop.)"""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    toks = [t for t in _CWS.split(text) if t]
    out = []
    for k in range(0, len(toks) - 2, 3):
        trg, src, p = toks[k], toks[k + 1], toks[k + 2]
        if not _FLOAT.match(p):
            break
        out.append((trg, src, F32(float(p))))
    return out


def read_marian_text(path_or_text, src_vocab, trg_vocab):
    """load(): [(src_id, trg_id, prob)] in file order, NULL triples skipped, unknown strings ->
    <unk> ids.  path_or_text: a file path, or the contents as bytes."""
    if isinstance(path_or_text, bytes):
        text = path_or_text
    else:
        with open(path_or_text, "rb") as fh:
            text = fh.read()
    return [(src_vocab[src], trg_vocab[trg], prob) for trg, src, prob in parse_marian_text(text)
            if src != "NULL" and trg != "NULL"]


def write_marian_text(path, triples):
    """triples: [(trg_piece, src_piece, prob)] -> lines `TRG SRC PROB\\n` (prob: a str is written as
    is, a number with repr of its float value).  Pieces must not contain whitespace."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for trg, src, prob in triples:
            for piece in (trg, src):
                if not piece or _CWS.search(piece):
                    raise ValueError("piece %r cannot be written to a Marian lex file" % piece)
            fh.write("%s %s %s\n" % (trg, src, prob if isinstance(prob, str) else repr(float(prob))))


def text_table(entries):
    """data_: {src_id: {trg_id: prob}}, a later entry for the same pair overwrites."""
    data = {}
    for s, t, p in entries:
        data.setdefault(int(s), {})[int(t)] = F32(p)
    return data


def prune_order(probs):
    """Targets of one source id in prune()'s order: prob descending, ties higher id first."""
    return [t for p, t in sorted(((F32(p), int(t)) for t, p in probs.items()), reverse=True)]


def prune(table, best=100, threshold=0.0):
    """prune(threshold): {src_id: [trg ids kept, best first]}."""
    th = F32(threshold)
    out = {}
    for s, probs in table.items():
        kept = []
        for t in prune_order(probs):
            if len(kept) < best and F32(probs[t]) > th:
                kept.append(t)
            else:
                break
        out[s] = kept
    return out


def _generate(lists, first, batch_source_ids, target_vocab_size, shared, bounded):
    """The index set of generate(): see the module docstring.  bounded: the binary generator's
    padding loop stops at the vocabulary size; the text one has no bound (raise instead)."""
    V = int(target_vocab_size)
    first = int(first)
    ids = set(range(min(first, V)))
    src = set()
    for sent in batch_source_ids:
        src.update(int(i) for i in sent)
    for i in sorted(src):
        if shared:
            if i >= V:
                raise ValueError("shared vocabularies but source id %d >= target size %d" % (i, V))
            ids.add(i)
        ids.update(lists.get(i, ()))
    i = first
    while len(ids) % 8 != 0:
        if i >= V:
            if bounded:
                break
            raise ValueError("Marian's text shortlist would pad with ids >= the vocabulary size")
        ids.add(i)
        i += 1
    return sorted(ids)


def marian_candidates(shortlist, batch_source_ids, target_vocab_size, first=100, best=100,
                      threshold=0.0, shared=False):
    """LexicalShortlistGenerator(first, best, threshold).generate(batch): the sorted candidate
    ids of one batch.  shortlist: text_table(read_marian_text(...)) (not yet pruned), or a
    BinaryShortlist (then first/best/threshold are ignored: binary_candidates).
    batch_source_ids: the batch's sentences as fed to the encoder (each incl. its </s>)."""
    if isinstance(shortlist, BinaryShortlist):
        return binary_candidates(shortlist, batch_source_ids, target_vocab_size, shared)
    return _generate(prune(shortlist, best, threshold), first, batch_source_ids,
                     target_vocab_size, shared, bounded=False)


# ----------------------------------------------------------------------------------------------
# Marian binary shortlist
# ----------------------------------------------------------------------------------------------
class BinaryShortlist:
    """The contents of a binary shortlist: first, best (header), offsets (uint64 [S+1]), lists
    (uint32 [N]); lists_of(i) = source id i's sorted targets."""

    def __init__(self, first, best, offsets, lists):
        self.first, self.best = int(first), int(best)
        self.offsets = np.asarray(offsets, dtype=np.uint64)
        self.lists = np.asarray(lists, dtype=np.uint32)

    @property
    def source_vocab_size(self):
        return len(self.offsets) - 1

    def lists_of(self, i):
        return [int(x) for x in self.lists[int(self.offsets[i]):int(self.offsets[i + 1])]]

    def as_dict(self):
        return {i: self.lists_of(i) for i in range(self.source_vocab_size)}


def marian_import(entries, source_vocab_size, first=100, best=100, threshold=0.0):
    """BinaryShortlistGenerator::import(): what marian-conv --shortlist FILE first best
    [threshold] writes, from read_marian_text's entries (max over duplicates, 0 for pairs whose
    probs are all <= 0, the target-id threshold quirk, best-pruned, lists sorted by id)."""
    table = [dict() for _ in range(int(source_vocab_size))]
    for s, t, p in entries:
        row = table[int(s)]
        cur = row.setdefault(int(t), F32(0))          # operator[] inserts 0
        if cur < F32(p):
            row[int(t)] = F32(p)
    th = float(threshold)
    offsets, lists = [], []
    for row in table:
        offsets.append(len(lists))
        # `if (entry.first >= threshold)`: entry.first is the target id
        kept = {t: p for t, p in row.items() if float(t) >= th}
        lists.extend(sorted(prune_order(kept)[:int(best)]))
    offsets.append(len(lists))
    return BinaryShortlist(first, best, offsets, lists)


def hash_mem_u64(words, seed=0):
    """marian-dev src/common/hash.h util::hashMem<uint64_t, uint64_t> (hash_combine with
    std::hash<uint64_t> = identity), uint64 arithmetic."""
    seed = int(seed)
    for v in words:
        seed ^= (int(v) + 0x9e3779b9 + ((seed << 6) & U64) + (seed >> 2)) & U64
    return seed


def checksum(blob):
    """The checksum of a whole binary shortlist blob (bytes): hashMem over the
    (len - 16) // 8 little-endian uint64 words after magic and checksum."""
    n = (len(blob) - 16) // 8
    return hash_mem_u64(np.frombuffer(blob, dtype="<u8", count=n, offset=16).tolist())


def marian_binary_bytes(bs):
    """The blob import() builds (and dump() writes), checksum filled in."""
    body = (np.asarray(bs.offsets, dtype="<u8").tobytes() +
            np.asarray(bs.lists, dtype="<u4").tobytes())
    head = struct.pack(HEADER_FORMAT, BINARY_SHORTLIST_MAGIC, 0, bs.first, bs.best,
                       len(bs.offsets), len(bs.lists))
    blob = bytearray(head + body)
    struct.pack_into("<Q", blob, 8, checksum(bytes(blob)))
    return bytes(blob)


def write_marian_binary(path, bs):
    with open(path, "wb") as fh:
        fh.write(marian_binary_bytes(bs))


class ShortlistError(ValueError):
    pass


def read_marian_binary(path_or_bytes, check=True, target_vocab_size=None):
    """BinaryShortlistGenerator::load(): magic, exact size, checksum and contentCheck() (both
    only with check; contentCheck's target-id bound only when target_vocab_size is given).
    Raises ShortlistError with Marian's message."""
    if isinstance(path_or_bytes, (bytes, bytearray)):
        blob = bytes(path_or_bytes)
    else:
        with open(path_or_bytes, "rb") as fh:
            blob = fh.read()
    if len(blob) < HEADER_SIZE:
        raise ShortlistError("Shortlist length %d too short to have a header" % len(blob))
    magic, chk, first, best, n_off, n_lists = struct.unpack_from(HEADER_FORMAT, blob, 0)
    if magic != BINARY_SHORTLIST_MAGIC:
        raise ShortlistError("Incorrect magic in binary shortlist")
    expected = HEADER_SIZE + 8 * n_off + 4 * n_lists
    if expected != len(blob):
        raise ShortlistError("Shortlist header claims file size should be %d but file is %d"
                             % (expected, len(blob)))
    if check and checksum(blob) != chk:
        raise ShortlistError("checksum check failed: this binary shortlist is corrupted")
    offsets = np.frombuffer(blob, dtype="<u8", count=n_off, offset=HEADER_SIZE)
    lists = np.frombuffer(blob, dtype="<u4", count=n_lists, offset=HEADER_SIZE + 8 * n_off)
    if check:
        bad = bool(np.any(offsets[:-1] >= n_lists)) or int(offsets[-1]) != n_lists
        if target_vocab_size is not None:
            bad = bad or bool(np.any(lists >= int(target_vocab_size)))
        if bad:
            raise ShortlistError("Error: shortlist indices are out of bounds")
    return BinaryShortlist(first, best, offsets.astype(np.uint64), lists.astype(np.uint32))


def binary_candidates(bs, batch_source_ids, target_vocab_size, shared=False):
    """BinaryShortlistGenerator::generate(batch) (firstNum from the header)."""
    lists = {}
    for sent in batch_source_ids:
        for i in sent:
            i = int(i)
            if i not in lists:
                if i >= bs.source_vocab_size:
                    raise ValueError("source id %d outside the shortlist's %d rows"
                                     % (i, bs.source_vocab_size))
                lists[i] = bs.lists_of(i)
    return _generate(lists, bs.first, batch_source_ids, target_vocab_size, shared, bounded=True)


# ----------------------------------------------------------------------------------------------
# CTranslate2 vocabulary map
# ----------------------------------------------------------------------------------------------
class VocabularyMap:
    """CTranslate2's VocabularyMap(map_file, target vocabulary) (src/vocabulary_map.cc).
    text: the file contents (str or bytes); vocab: a CT2Vocab (the target vocabulary).
    rules[h] = {key: [ids]} for keys of h+1 tokens; fixed = the always-candidates."""

    def __init__(self, text, vocab):
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        self.vocab = vocab
        self.rules = []
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()                  # std::getline: no empty line after the final \n
        for line in lines:
            if line.endswith("\r"):
                line = line[:-1]
            token, key, values, target, ngram = "", "", [], False, 1
            for ch in line:
                if ch == "\t":
                    target = True
                    key, token = token, key          # std::swap(key, token)
                elif ch == " ":
                    if target:
                        values.append(vocab.to_id(token))
                        token = ""
                    else:
                        token += ch
                        ngram += 1
                else:
                    token += ch
            if token:
                values.append(vocab.to_id(token))
            while len(self.rules) < ngram:
                self.rules.append({})
            self.rules[ngram - 1][key] = values
        self.fixed = {vocab.unk_id, vocab.bos_id, vocab.eos_id}
        if self.rules and "" in self.rules[0]:
            self.fixed.update(self.rules[0][""])

    def get_candidates(self, source_tokens, target_prefix_ids):
        cands = set(self.fixed)
        for tokens in source_tokens:
            for i in range(len(tokens)):
                accu = ""
                h = 0
                while h < len(self.rules) and i + h < len(tokens):
                    if h > 0:
                        accu += " "
                    accu += tokens[i + h]
                    if accu in self.rules[h]:
                        cands.update(self.rules[h][accu])
                    h += 1
        for ids in target_prefix_ids:
            cands.update(int(i) for i in ids)
        return sorted(cands)


def read_vmap(path, vocab):
    with open(path, "rb") as fh:
        return VocabularyMap(fh.read(), vocab)


def write_vmap(path, entries):
    """entries: [(key, [target tokens])], key a str (source tokens joined by single spaces; ""
    for the always-candidates line) -> `KEY\\tT1 T2 ...\\n`."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for key, targets in entries:
            if "\t" in key or "\n" in key or any((not t) or re.search(r"[ \t\n]", t) for t in targets):
                raise ValueError("entry %r cannot be written to a vmap file" % ((key, targets),))
            fh.write("%s\t%s\n" % (key, " ".join(targets)))


def ct2_candidates(vmap, batch_source_tokens, target_prefix_ids, vocab=None):
    """VocabularyMap::get_candidates for one batch: sorted ids.  vmap: a VocabularyMap, or the
    file contents (str/bytes) with vocab (CT2Vocab).  batch_source_tokens: the source token
    strings as passed to CTranslate2 (no </s>); target_prefix_ids: per sentence the decoder start
    token id followed by its target prefix ids (make_target_ids(is_prefix=true))."""
    if not isinstance(vmap, VocabularyMap):
        vmap = VocabularyMap(vmap, vocab)
    return vmap.get_candidates(batch_source_tokens, target_prefix_ids)
