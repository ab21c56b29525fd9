"""Libraries loaded on first use (slpy/logic/lib): assoc, ordsets, pairs, lists,
aggregate; must_be/2 and the error throwers."""
import numpy as np
import pytest

from slpy import Program
from slpy.logic.autoload import exports, LIB_DIR
from slpy.terms.term import PrologError

from ..conftest import answers


def one(p, q, var):
    b = p.once(q)
    assert b is not None, q
    return str(b[var])


def formal(p, q):
    with pytest.raises(PrologError) as ei:
        p.once(q)
    f = ei.value.term.args[0]
    return str(f)


def test_every_export_is_defined_by_its_library():
    by_lib: dict = {}
    for key, lib in exports().items():
        by_lib.setdefault(lib, []).append(key)
    for lib, keys in by_lib.items():
        p = Program()
        assert p.load_library(lib)
        for name, arity in keys:
            pred = p.db.lookup(name, arity)
            assert pred is not None and pred.clauses, f"{lib} exports {name}/{arity}"
    assert {path.stem for path in LIB_DIR.glob("*.pl")} == set(by_lib)


def test_libraries_load_on_first_call_only(prog):
    assert "assoc" not in prog.libraries
    assert one(prog, "list_to_assoc([b-2, a-1], A), get_assoc(a, A, V)", "V") == "1"
    assert "assoc" in prog.libraries and "ordsets" not in prog.libraries
    # a program's own definition wins over the library's
    prog.consult_text("union(_, _, mine).", "mine.pl")
    assert one(prog, "union([a], [b], U)", "U") == "mine"


def test_use_module_library_loads_it(prog):
    prog.consult_text(":- use_module(library(ordsets)).", "u.pl")
    assert "ordsets" in prog.libraries
    prog.consult_text(":- module(mymod, [f/1]).\nf(1).", "m.pl")
    assert one(prog, "f(X)", "X") == "1"


def test_assoc_against_a_dict():
    # random insertions and deletions, checked against a Python dict at each step
    p = Program()
    rng = np.random.default_rng(5)
    d = {}
    p.consult_text(":- dynamic(tree/1).\ntree(t).")
    for step in range(300):
        k = int(rng.integers(0, 60))
        if k in d and rng.random() < 0.4:
            v = d.pop(k)
            q = f"retract(tree(A0)), del_assoc({k}, A0, V, A), assertz(tree(A))"
            assert one(p, q, "V") == str(v)
        else:
            d[k] = step
            assert p.once(f"retract(tree(A0)), put_assoc({k}, A0, {step}, A), "
                          f"assertz(tree(A))") is not None
        if step % 25 == 0 or step == 299:
            lst = "[" + ",".join(f"{k}-{v}" for k, v in sorted(d.items())) + "]"
            assert p.once(f"tree(A), is_assoc(A), assoc_to_list(A, L), L == {lst}") \
                is not None, step
    assert p.once("tree(A), del_assoc(1000, A, _, _)") is None


def test_assoc_predicates(prog):
    q = "list_to_assoc([c-3, a-1, b-2], A), "
    assert one(prog, q + "assoc_to_keys(A, K)", "K") == "[a,b,c]"
    assert one(prog, q + "assoc_to_values(A, V)", "V") == "[1,2,3]"
    assert answers(prog, q + "gen_assoc(K, A, _)", "K") == ["a", "b", "c"]
    assert one(prog, q + "max_assoc(A, K, _)", "K") == "c"
    assert one(prog, q + "min_assoc(A, K, _)", "K") == "a"
    assert one(prog, q + "del_min_assoc(A, K, _, A1), assoc_to_keys(A1, Ks)", "Ks") == "[b,c]"
    assert one(prog, q + "del_max_assoc(A, K, _, A1), assoc_to_keys(A1, Ks)", "Ks") == "[a,b]"
    assert one(prog, q + "map_assoc([X, Y]>>(Y is 10 * X), A, A1), assoc_to_values(A1, V)",
               "V") == "[10,20,30]"
    assert prog.once(q + "map_assoc(integer, A)") is not None
    assert one(prog, q + "get_assoc(b, A, Old, A1, new), get_assoc(b, A1, N)", "N") == "new"
    assert one(prog, "empty_assoc(E)", "E") == "t"
    assert one(prog, "ord_list_to_assoc([a-1, b-2], A), assoc_to_list(A, L)", "L") == "[a-1,b-2]"
    assert formal(prog, "list_to_assoc([a-1, a-2], _)") == \
        "domain_error(unique_key_pairs,[a-1,a-2])"
    assert formal(prog, "list_to_assoc(_, _)") == "instantiation_error"
    assert prog.once("get_assoc(a, t, _)") is None


def test_ordsets(prog):
    assert one(prog, "list_to_ord_set([c, a, b, a], S)", "S") == "[a,b,c]"
    assert one(prog, "ord_union([a, c], [b, c, d], S)", "S") == "[a,b,c,d]"
    assert one(prog, "ord_union([[c], [a], [b, a]], S)", "S") == "[a,b,c]"
    assert one(prog, "ord_union([a, c], [b, c], S, New)", "New") == "[b]"
    assert one(prog, "ord_intersection([a, b, c], [b, c, d], S)", "S") == "[b,c]"
    assert one(prog, "ord_intersection([[a, b, c], [b, c], [c, d]], S)", "S") == "[c]"
    assert one(prog, "ord_subtract([a, b, c], [b, d], S)", "S") == "[a,c]"
    assert one(prog, "ord_symdiff([a, b], [b, c], S)", "S") == "[a,c]"
    assert one(prog, "ord_add_element([a, c], b, S)", "S") == "[a,b,c]"
    assert one(prog, "ord_del_element([a, b, c], b, S)", "S") == "[a,c]"
    assert one(prog, "ord_selectchk(b, [a, b, c], S)", "S") == "[a,c]"
    for q in ("ord_memberchk(b, [a, b])", "ord_subset([a, c], [a, b, c])",
              "ord_disjoint([a], [b])", "ord_intersect([a, b], [b])", "ord_empty([])",
              "is_ordset([a, b])", "ord_seteq([a], [a])"):
        assert prog.once(q) is not None, q
    for q in ("ord_memberchk(z, [a, b])", "ord_subset([a, d], [a, b, c])",
              "is_ordset([b, a])", "is_ordset([a, a])"):
        assert prog.once(q) is None, q


def test_lists_and_pairs(prog):
    assert one(prog, "union([a, b, c], [b, d], U)", "U") == "[a,c,b,d]"
    assert one(prog, "intersection([a, b, c], [c, a, e], I)", "I") == "[a,c]"
    assert one(prog, "subtract([a, b, c], [b], S)", "S") == "[a,c]"
    assert answers(prog, "nextto(X, Y, [1, 2, 3])", "Y") == ["2", "3"]
    assert one(prog, "max_member(@=<, M, [b, c, a])", "M") == "c"
    assert one(prog, "min_member(@=<, M, [b, c, a])", "M") == "a"
    assert answers(prog, "subseq([1, 2], S, _)", "S") == ["[1,2]", "[1]", "[2]", "[]"]
    assert one(prog, "proper_length([a, b], N)", "N") == "2"
    assert prog.once("proper_length([a|_], _)") is None
    assert one(prog, "transpose_pairs([a-2, b-1], T)", "T") == "[1-b,2-a]"
    assert one(prog, "map_list_to_pairs(atom_length, [abc, d], P)", "P") == "[3-abc,1-d]"


def test_aggregate_all(prog):
    g = "member(X-W, [1-a, 3-b, 2-c, 3-d])"
    assert one(prog, f"aggregate_all(count, {g}, C)", "C") == "4"
    assert one(prog, f"aggregate_all(sum(X), {g}, S)", "S") == "9"
    assert one(prog, f"aggregate_all(sum(X * 2), {g}, S)", "S") == "18"
    assert one(prog, f"aggregate_all(max(X), {g}, S)", "S") == "3"
    assert one(prog, f"aggregate_all(min(X - 1), {g}, S)", "S") == "0"
    assert one(prog, f"aggregate_all(max(X, W), {g}, S)", "S") == "max(3,b)"
    assert one(prog, f"aggregate_all(min(X, W), {g}, S)", "S") == "min(1,a)"
    assert one(prog, f"aggregate_all(bag(W), {g}, S)", "S") == "[a,b,c,d]"
    assert one(prog, f"aggregate_all(set(X), {g}, S)", "S") == "[1,2,3]"
    assert one(prog, f"aggregate_all(r(count, sum(X), max(X, W), set(W)), {g}, R)", "R") == \
        "r(4,9,max(3,b),[a,b,c,d])"
    assert one(prog, "aggregate_all(r(count, bag(X)), fail, R)", "R") == "r(0,[])"
    assert one(prog, "aggregate_all(sum(X), fail, R)", "R") == "0"
    assert prog.once("aggregate_all(r(count, max(X)), fail, _)") is None
    assert prog.once("aggregate_all(max(X), fail, _)") is None
    assert one(prog, "aggregate_all(count, X, member(X, [a, b, a]), C)", "C") == "2"
    assert formal(prog, "aggregate_all(_, true, _)") == "instantiation_error"
    assert formal(prog, "aggregate_all(foo, true, _)") == "domain_error(aggregate_template,foo)"
    assert formal(prog, "aggregate_all(max(X), member(X, [a]), _)").startswith("type_error")


def test_aggregate_groups_like_bagof(prog):
    assert [(str(b["X"]), str(b["C"])) for b in
            prog.query("aggregate(count, member(X, [a, b, a]), C)")] == [("a", "2"), ("b", "1")]
    assert one(prog, "aggregate(sum(V), K^member(K-V, [a-1, b-2]), S)", "S") == "3"
    assert prog.once("aggregate(count, fail, _)") is None
    assert one(prog, "aggregate(count, X, member(X, [a, b, a]), C)", "C") == "2"


def test_must_be(prog):
    for q in ("must_be(integer, 1)", "must_be(positive_integer, 1)", "must_be(nonneg, 0)",
              "must_be(list, [a])", "must_be(list(integer), [1, 2])", "must_be(boolean, true)",
              "must_be(oneof([a, b]), b)", "must_be(between(1, 3), 2)", "must_be(callable, f(x))",
              "must_be(var, _)", "must_be(chars, [a, b])", "must_be(codes, [97])",
              "must_be(text, \"s\")", "is_of_type(atom, a)"):
        assert prog.once(q) is not None, q
    assert prog.once("is_of_type(atom, 1)") is None
    cases = {
        "must_be(integer, _)": "instantiation_error",
        "must_be(integer, a)": "type_error(integer,a)",
        "must_be(positive_integer, 0)": "type_error(positive_integer,0)",
        "must_be(nonneg, -1)": "type_error(nonneg,-1)",
        "must_be(list, [a|_])": "instantiation_error",
        "must_be(list, foo)": "type_error(list,foo)",
        "must_be(list(integer), [1, a])": "type_error(integer,a)",
        "must_be(between(1, 3), 5)": "domain_error(between(1,3),5)",
        "must_be(between(1, 3), a)": "type_error(integer,a)",
        "must_be(oneof([a, b]), c)": "domain_error(oneof([a,b]),c)",
        "must_be(boolean, x)": "type_error(boolean,x)",
        "must_be(var, a)": "uninstantiation_error(a)",
        "must_be(no_such_type, a)": "existence_error(type,no_such_type)",
        "type_error(integer, a)": "type_error(integer,a)",
        "domain_error(positive, -1)": "domain_error(positive,-1)",
        "existence_error(file, f)": "existence_error(file,f)",
        "permission_error(modify, static_procedure, foo/1)":
            "permission_error(modify,static_procedure,foo/1)",
        "instantiation_error(_)": "instantiation_error",
        "resource_error(memory)": "resource_error(memory)",
        "representation_error(max_arity)": "representation_error(max_arity)",
    }
    for q, f in cases.items():
        assert formal(prog, q) == f, q
