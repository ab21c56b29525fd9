"""The text of single tokens as SWI-Prolog writes them: atoms (quoted when they must
be), quoted strings with escapes, floats (shortest text that reads back), variable
names (``'$VAR'(N)`` and write_canonical's ``A``, ``B``, ``_``).

The character classes here are the writer's token rule; writer.py writes whole terms.
"""
from __future__ import annotations

import math
import unicodedata

from .term import Struct, Var

__all__ = ["atom_needs_quotes", "quote_text", "atom_text", "format_float",
           "var_letter_name", "letter_var_names", "canonical_var_names", "is_alnum",
           "is_symbol", "is_var_name", "PUNCT"]

_SYMBOL = frozenset("#$&*+-./:<=>?@^~\\")
_SOLO = frozenset("!;")
PUNCT = frozenset("()[]{},|")
_ALNUM_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
            92: "\\\\"}

# -- character classes ---------------------------------------------------------------

def is_alnum(c: str) -> bool:
    if c in _ALNUM_ASCII:
        return True
    if c < "\x80":
        return False
    cat = unicodedata.category(c)
    return cat[0] in "LN" or cat in ("Mn", "Mc", "Pc")


def is_symbol(c: str) -> bool:
    if c in _SYMBOL:
        return True
    return c >= "\x80" and unicodedata.category(c) in ("Sm", "Sc", "Sk", "So")


def _atom_start(c: str) -> bool:
    if "a" <= c <= "z":
        return True
    # other letters without case (CJK, ...) start atoms too, as in SWI-Prolog
    return c >= "\x80" and unicodedata.category(c) in ("Ll", "Lo")


# -- atoms, strings, numbers -----------------------------------------------------------

_quote_cache: dict[str, bool] = {}


def atom_needs_quotes(name: str) -> bool:
    """True if writeq must quote the atom name."""
    r = _quote_cache.get(name)
    if r is None:
        r = _needs_quotes(name)
        if len(_quote_cache) < 100_000:
            _quote_cache[name] = r
    return r


def _needs_quotes(s: str) -> bool:
    if not s:
        return True
    c = s[0]
    if _atom_start(c):
        return not all(is_alnum(ch) for ch in s[1:])
    if is_symbol(c):
        if s == "." or s.startswith("/*"):
            return True
        return not all(is_symbol(ch) for ch in s)
    if len(s) == 1 and c in _SOLO:
        return False
    return s not in ("[]", "{}")


def _must_escape(o: int) -> bool:
    return o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0


def quote_text(s: str, q: str = "'") -> str:
    """s between quotes q with SWI's escapes (\\n, \\\\, \\', \\x1F\\ ...)."""
    parts = [q]
    start = 0
    for i, ch in enumerate(s):
        o = ord(ch)
        if ch == q or o == 92 or _must_escape(o):
            parts.append(s[start:i])
            if ch == q:
                parts.append("\\" + q)
            else:
                parts.append(_ESCAPES.get(o) or "\\x%X\\" % o)
            start = i + 1
    parts.append(s[start:])
    parts.append(q)
    return "".join(parts)


def atom_text(name: str, quoted: bool = True) -> str:
    if quoted and atom_needs_quotes(name):
        return quote_text(name)
    return name


def format_float(f: float) -> str:
    """Shortest text that reads back as f, always with '.' or 'e' (SWI's format_float)."""
    if f != f:
        return "1.5NaN"
    if f == math.inf:
        return "1.0Inf"
    if f == -math.inf:
        return "-1.0Inf"
    if f == 0.0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    r = repr(f)
    sign = ""
    if r[0] == "-":
        sign = "-"
        r = r[1:]
    exp = 0
    if "e" in r:
        r, e = r.split("e")
        exp = int(e)
    ip, _, fp = r.partition(".")
    digits = ip + fp
    stripped = digits.lstrip("0")
    decpt = len(ip) + exp - (len(digits) - len(stripped))
    digits = stripped.rstrip("0") or "0"
    nd = len(digits)
    if decpt <= 0:
        if decpt <= -4:
            return f"{sign}{digits[0]}.{digits[1:] or '0'}e{decpt - 1}"
        return f"{sign}0.{'0' * -decpt}{digits}"
    if nd > decpt:
        return f"{sign}{digits[:decpt]}.{digits[decpt:]}"
    if decpt > 15:
        return f"{sign}{digits[0]}.{digits[1:] or '0'}e{decpt - 1}"
    return f"{sign}{digits}{'0' * (decpt - nd)}.0"


def var_letter_name(n: int) -> str:
    """Name of '$VAR'(n): A..Z, A1..Z1, ...; negative n gives S_n as in SWI."""
    if n < 0:
        return f"S_{-n}"
    i, j = n % 26, n // 26
    return chr(65 + i) if j == 0 else f"{chr(65 + i)}{j}"


def is_var_name(s: str) -> bool:
    return bool(s) and (s[0] == "_" or s[0].isupper()) and all(is_alnum(c) for c in s)


def letter_var_names(*terms, prefix: str = "_", singleton: str | None = None,
                     named=None) -> dict:
    """Names for the variables of terms, in order of first occurrence (depth first, left
    to right): prefix + A, B, ..., Z, A1, ... (``_A``, ``_B`` as the top level and
    proof trees show fresh variables). With singleton, a variable that occurs only
    once gets that name instead (``_``) and no letter. named: variables that already
    have names (Var -> name): they get none here, and their names are not reused."""
    counts: dict = {}
    order = []
    stack = list(reversed(terms))
    while stack:
        x = stack.pop()
        while type(x) is Var and x.ref is not None:
            x = x.ref
        if type(x) is Var:
            if named is not None and x in named:
                continue
            if x not in counts:
                counts[x] = 0
                order.append(x)
            counts[x] += 1
        elif type(x) is Struct:
            stack.extend(reversed(x.args))
    used = set(named.values()) if named else ()
    names = {}
    k = 0
    for v in order:
        if singleton is not None and counts[v] == 1:
            names[v] = singleton
            continue
        name = prefix + var_letter_name(k)
        k += 1
        while name in used:
            name = prefix + var_letter_name(k)
            k += 1
        names[v] = name
    return names


def canonical_var_names(t) -> dict:
    """write_canonical's names: variables seen twice get A, B, ...; singletons get _."""
    return letter_var_names(t, prefix="", singleton="_")
