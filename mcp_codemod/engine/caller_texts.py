"""What the search for a registrar's callers reads of the project's files: whether a file's
text has a word (the registrar's name), and what its imports may refer to
(`engine/import_graph.py`). With a cache each answer is kept with the file's entry, so an
unchanged file is not read again."""

from __future__ import annotations

import os

from mcp_codemod.engine.facts_cache import Entry, FactsCache, digest, refreshed, stamp
from mcp_codemod.engine.file_io import SourceError, decode
from mcp_codemod.engine.import_graph import Target, import_targets
from mcp_codemod.engine.run_cache import Witness

_UNREAD = object()  # a file the caller search has not read yet


class CallerTexts:
    def __init__(self, cache: FactsCache | None, witness: Witness | None) -> None:
        self.cache = cache
        self.witness = witness  # records what the run read, for the run cache
        # What the caller search read of each file (by resolved path): bytes, the text of a
        # candidate, or None. Plain strings: it asks of every file of a project per registrar.
        self.caller_texts: dict[str, bytes | str | None] = {}
        self.import_targets: dict[str, tuple[Target, ...]] = {}  # without a cache
        self.verdicts: dict[str, Entry | None] = {}

    def mentioning(self, paths: list[str], name: str) -> list[str]:
        """The paths whose file's text has the word `name`: `mentions`, of each in turn."""
        if self.cache is not None or not name.isascii():
            return [path for path in paths if self.mentions(path, name)]
        # Without a cache most files were read for an earlier name, and their bytes lack this
        # one: that test (`_text_mentions`'s first) is made here, not in two calls per file.
        encoded = name.encode()
        texts = self.caller_texts
        found = []
        for path in paths:
            text = texts.get(path, _UNREAD)
            if text is None or (isinstance(text, bytes) and encoded not in text):
                continue
            if self._text_mentions(path, name):
                found.append(path)
        return found

    def mentions(self, path: str, name: str) -> bool:
        """Whether the file's text has the word `name`. With a cache, the answer is kept per
        file and name: an unchanged file is not read again."""
        if self.cache is None:
            return self._text_mentions(path, name)
        key = os.path.abspath(path)
        if self.witness is not None:
            self.witness.saw((key,))
        entry = self._verdict(path, key)
        if entry is None:
            return False
        known = dict(entry.mentions)
        if name not in known:
            known[name] = self._text_mentions(path, name)
            entry = entry._replace(mentions=tuple(sorted(known.items())))
            self._put(key, entry)
            self.verdicts[path] = entry
        return known[name]

    def imports(self, paths: list[str]) -> list[tuple[str, tuple[Target, ...]]]:
        """What each file's imports may refer to (`engine/import_graph.py`). With a cache the
        answer is kept per content: an unchanged file is not read again. A file that cannot be
        read imports nothing (nor does it mention any name)."""
        found = []
        for path in paths:
            if self.cache is None:
                targets = self.import_targets.get(path)
                if targets is None:
                    targets = self.import_targets[path] = import_targets(self._bytes(path))
            else:
                key = os.path.abspath(path)
                if self.witness is not None:
                    self.witness.saw((key,))
                entry = self._verdict(path, key)
                if entry is None:
                    targets = ()
                elif entry.imports is not None:
                    targets = entry.imports
                else:
                    targets = import_targets(self._bytes(path))
                    entry = entry._replace(imports=targets)
                    self._put(key, entry)
                    self.verdicts[path] = entry
            found.append((path, targets))
        return found

    def _bytes(self, path: str) -> bytes:
        """The file's bytes as the caller search read them (or reads them now); its decoded text
        encoded again, where only that is kept."""
        text = self._kept(path)
        if isinstance(text, str):
            return text.encode("utf-8", "surrogateescape")
        return text if isinstance(text, bytes) else b""

    def _verdict(self, path: str, key: str) -> Entry | None:
        """The file's cache entry, read again only when its stamp changed; None when it cannot
        be read."""
        if path not in self.verdicts:
            entry = self.cache.get(key) if self.cache is not None else None
            try:
                status = os.stat(path)
                if entry is None or entry.stamp is None or stamp(status) != entry.stamp:
                    data = _read(path)
                    entry = refreshed(entry, status, digest(data))
                    self._put(key, entry)
                    self.caller_texts[path] = data
            except OSError:
                entry = None
            self.verdicts[path] = entry
        return self.verdicts[path]

    def _kept(self, path: str) -> bytes | str | None:
        """What the search keeps of a file, read the first time it is asked for: its bytes, the
        text of a file that named a word asked about, or None when it cannot be read."""
        if path not in self.caller_texts:
            try:
                self.caller_texts[path] = _read(path)
            except OSError:
                self.caller_texts[path] = None
        return self.caller_texts[path]

    def _text_mentions(self, path: str, name: str) -> bool:
        text = self._kept(path)
        if text is None:
            return False
        # The name first: a substring test on the bytes costs a hundredth of the word search
        # on decoded text. Every source encoding is ASCII-compatible.
        if isinstance(text, bytes):
            if name.isascii() and name.encode() not in text:
                return False
            try:
                text = decode(text).text
            except SourceError:
                text = None
            self.caller_texts[path] = text
            if text is None:
                return False
        return _has_word(text, name)

    def _put(self, key: str, entry: Entry) -> None:
        if self.cache is not None:
            self.cache.put(key, entry)


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _has_word(text: str, word: str) -> bool:
    r"""`re.search(rf"\b{re.escape(word)}\b", text)`, by `str.find`: a pattern that starts with
    `\b` has no literal prefix to search for, and tries every position of the text."""
    at = text.find(word)
    while at >= 0:
        if _word_boundary(text, at) and _word_boundary(text, at + len(word)):
            return True
        at = text.find(word, at + 1)
    return False


def _word_boundary(text: str, index: int) -> bool:
    r"""`\b` at `index`: a word character on one side only (`\w` is `isalnum` or `_`)."""
    before = index > 0 and (text[index - 1].isalnum() or text[index - 1] == "_")
    after = index < len(text) and (text[index].isalnum() or text[index] == "_")
    return before != after
