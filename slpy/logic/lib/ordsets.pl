:- module(ordsets, [is_ordset/1, list_to_ord_set/2, ord_empty/1, ord_memberchk/2,
                    ord_add_element/3, ord_del_element/3, ord_selectchk/3,
                    ord_union/2, ord_union/3, ord_union/4, ord_intersection/2,
                    ord_intersection/3, ord_intersection/4, ord_intersect/2,
                    ord_disjoint/2, ord_subtract/3, ord_subset/2, ord_symdiff/3,
                    ord_seteq/2]).
% SWI-Prolog's library(ordsets): sets as lists sorted by the standard order of terms,
% without duplicates (what sort/2 returns). The merges walk both lists once.

is_ordset(Term) :- is_list(Term), '$is_ordset'(Term).
'$is_ordset'([]).
'$is_ordset'([H|T]) :- '$is_ordset'(T, H).
'$is_ordset'([], _).
'$is_ordset'([H|T], P) :- P @< H, '$is_ordset'(T, H).

list_to_ord_set(List, Set) :- sort(List, Set).

ord_empty([]).

ord_memberchk(X, [H|T]) :-
    compare(O, X, H),
    (   O == (=) -> true
    ;   O == (>) -> ord_memberchk(X, T)
    ).

ord_add_element(Set, X, Set1) :- ord_union(Set, [X], Set1).
ord_del_element(Set, X, Set1) :- ord_subtract(Set, [X], Set1).

ord_selectchk(X, [H|T], R) :-
    compare(O, X, H),
    (   O == (=) -> R = T
    ;   O == (>) -> R = [H|R1], ord_selectchk(X, T, R1)
    ).

ord_union(Sets, Set) :- append(Sets, L), sort(L, Set).

ord_union([], B, B) :- !.
ord_union(A, [], A) :- !.
ord_union([H1|T1], [H2|T2], U) :-
    compare(O, H1, H2),
    '$ord_union'(O, H1, T1, H2, T2, U).
'$ord_union'(<, H1, T1, H2, T2, [H1|U]) :- ord_union(T1, [H2|T2], U).
'$ord_union'(=, H1, T1, _, T2, [H1|U]) :- ord_union(T1, T2, U).
'$ord_union'(>, H1, T1, H2, T2, [H2|U]) :- ord_union([H1|T1], T2, U).

% ord_union(+Set1, +Set2, -Union, -New): New are the elements of Set2 not in Set1
ord_union(S1, S2, U, New) :- ord_union(S1, S2, U), ord_subtract(S2, S1, New).

ord_intersection([S|Ss], I) :- foldl([X, A0, A]>>ord_intersection(A0, X, A), Ss, S, I).

ord_intersection([], _, []) :- !.
ord_intersection(_, [], []) :- !.
ord_intersection([H1|T1], [H2|T2], I) :-
    compare(O, H1, H2),
    '$ord_inter'(O, H1, T1, H2, T2, I).
'$ord_inter'(<, _, T1, H2, T2, I) :- ord_intersection(T1, [H2|T2], I).
'$ord_inter'(=, H1, T1, _, T2, [H1|I]) :- ord_intersection(T1, T2, I).
'$ord_inter'(>, H1, T1, _, T2, I) :- ord_intersection([H1|T1], T2, I).

% ord_intersection(+Set1, +Set2, ?Intersection, ?Difference): Difference is Set2 - Set1
ord_intersection(S1, S2, I, D) :- ord_intersection(S1, S2, I), ord_subtract(S2, S1, D).

ord_intersect(S1, S2) :- ord_intersection(S1, S2, [_|_]).

ord_disjoint(S1, S2) :- \+ ord_intersect(S1, S2).

ord_subtract([], _, []) :- !.
ord_subtract(A, [], A) :- !.
ord_subtract([H1|T1], [H2|T2], D) :-
    compare(O, H1, H2),
    '$ord_sub'(O, H1, T1, H2, T2, D).
'$ord_sub'(<, H1, T1, H2, T2, [H1|D]) :- ord_subtract(T1, [H2|T2], D).
'$ord_sub'(=, _, T1, _, T2, D) :- ord_subtract(T1, T2, D).
'$ord_sub'(>, H1, T1, _, T2, D) :- ord_subtract([H1|T1], T2, D).

ord_subset(A, B) :- ord_subtract(A, B, []).

ord_symdiff(S1, S2, D) :-
    ord_subtract(S1, S2, D1), ord_subtract(S2, S1, D2), ord_union(D1, D2, D).

ord_seteq(S1, S2) :- S1 == S2.
