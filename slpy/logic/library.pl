% The library every slpy program sees: control helpers, all-solutions predicates and
% the list predicates SWI-Prolog users reach for. A program may redefine any of these.

once(G) :- call(G), !.

% cleanup runs once when G is finished: exited with no choice point left, failed,
% raised an exception, or cut (slpy/logic/cleanup.py)
setup_call_cleanup(S, G, C) :- once(S), '$call_cleanup'(G, C).
call_cleanup(G, C) :- '$call_cleanup'(G, C).

% SWI-Prolog's assertion/1 (library(debug)): G must succeed; its bindings are undone
assertion(G) :- \+ \+ catch(G, E, '$assertion_failed'(E, G)), !.
assertion(G) :- '$assertion_failed'(fail, G).
'$assertion_failed'(Reason, G) :-
    print_message(error, assertion_failed(Reason, G)),
    throw(error(assertion_error(Reason, G), _)).
repeat.
repeat :- repeat.
ignore(G) :- (call(G) -> true ; true).
_ ^ G :- call(G).

append([], L, L).
append([H|T], L, [H|R]) :- append(T, L, R).

append(ListOfLists, List) :- '$append_all'(ListOfLists, List).
'$append_all'([], []).
'$append_all'([L|Ls], As) :- append(L, Ws, As), '$append_all'(Ls, Ws).

% member/2 leaves no choice point at the last element (as SWI-Prolog's)
member(El, [H|T]) :- '$member'(T, El, H).
'$member'(_, El, El).
'$member'([H|T], El, _) :- '$member'(T, El, H).

% indexed on the tail, so that the last element leaves no choice point (as SWI)
select(X, [H|T], R) :- '$select3'(T, H, X, R).
'$select3'(T, H, H, T).
'$select3'([H2|T], H, X, [H|R]) :- '$select3'(T, H2, X, R).

selectchk(X, L, R) :- select(X, L, R), !.

select(X, Xs, Y, Ys) :- '$select4'(Xs, X, Y, Ys).
'$select4'([X|T], X, Y, [Y|T]).
'$select4'([H|T], X, Y, [H|T2]) :- '$select4'(T, X, Y, T2).

% the list first in the helpers: first-argument indexing makes them deterministic
exclude(P, L, R) :- '$exclude'(L, P, R).
'$exclude'([], _, []).
'$exclude'([H|T], P, R) :- ( call(P, H) -> R = R1 ; R = [H|R1] ), '$exclude'(T, P, R1).

include(P, L, R) :- '$include'(L, P, R).
'$include'([], _, []).
'$include'([H|T], P, R) :- ( call(P, H) -> R = [H|R1] ; R = R1 ), '$include'(T, P, R1).

partition(P, L, I, E) :- '$partition'(L, P, I, E).
'$partition'([], _, [], []).
'$partition'([H|T], P, I, E) :-
    ( call(P, H) -> I = [H|I1], E = E1 ; I = I1, E = [H|E1] ),
    '$partition'(T, P, I1, E1).

maplist(P, L) :- '$maplist'(L, P).
'$maplist'([], _).
'$maplist'([A|As], P) :- call(P, A), '$maplist'(As, P).
maplist(P, L1, L2) :- '$maplist'(L1, L2, P).
'$maplist'([], [], _).
'$maplist'([A|As], [B|Bs], P) :- call(P, A, B), '$maplist'(As, Bs, P).
maplist(P, L1, L2, L3) :- '$maplist'(L1, L2, L3, P).
'$maplist'([], [], [], _).
'$maplist'([A|As], [B|Bs], [C|Cs], P) :- call(P, A, B, C), '$maplist'(As, Bs, Cs, P).
maplist(P, L1, L2, L3, L4) :- '$maplist'(L1, L2, L3, L4, P).
'$maplist'([], [], [], [], _).
'$maplist'([A|As], [B|Bs], [C|Cs], [D|Ds], P) :-
    call(P, A, B, C, D), '$maplist'(As, Bs, Cs, Ds, P).

foldl(G, L, V0, V) :- '$foldl1'(L, G, V0, V).
'$foldl1'([], _, V, V).
'$foldl1'([X|Xs], G, V0, V) :- call(G, X, V0, V1), '$foldl1'(Xs, G, V1, V).
foldl(G, L1, L2, V0, V) :- '$foldl2'(L1, L2, G, V0, V).
'$foldl2'([], [], _, V, V).
'$foldl2'([X|Xs], [Y|Ys], G, V0, V) :- call(G, X, Y, V0, V1), '$foldl2'(Xs, Ys, G, V1, V).
foldl(G, L1, L2, L3, V0, V) :- '$foldl3'(L1, L2, L3, G, V0, V).
'$foldl3'([], [], [], _, V, V).
'$foldl3'([X|Xs], [Y|Ys], [Z|Zs], G, V0, V) :-
    call(G, X, Y, Z, V0, V1), '$foldl3'(Xs, Ys, Zs, G, V1, V).

permutation([], []).
permutation(L, [H|T]) :- select(H, L, R), permutation(R, T).

flatten(List, Flat) :- '$flatten'(List, [], Flat0), !, Flat = Flat0.
'$flatten'(Var, Tl, [Var|Tl]) :- var(Var), !.
'$flatten'([], Tl, Tl) :- !.
'$flatten'([Hd|Tl], Tail, List) :- !, '$flatten'(Hd, FlatHeadTail, List), '$flatten'(Tl, Tail, FlatHeadTail).
'$flatten'(NonList, Tl, [NonList|Tl]).

pairs_keys_values([], [], []).
pairs_keys_values([K-V|T], [K|Ks], [V|Vs]) :- pairs_keys_values(T, Ks, Vs).
pairs_keys([], []).
pairs_keys([K-_|T], [K|Ks]) :- pairs_keys(T, Ks).
pairs_values([], []).
pairs_values([_-V|T], [V|Vs]) :- pairs_values(T, Vs).

predsort(P, L, Sorted) :-
    length(L, N),
    (   N < 2 -> '$predsort_small'(P, L, Sorted)
    ;   '$predsort'(P, N, L, _, Sorted1), Sorted = Sorted1 ).
'$predsort_small'(_, [], []).
'$predsort_small'(_, [X], [X]).
'$predsort'(P, 2, [X1,X2|L], L, R) :- !, call(P, Delta, X1, X2), '$sort2'(Delta, X1, X2, R).
'$predsort'(_, 1, [X|L], L, [X]) :- !.
'$predsort'(_, 0, L, L, []) :- !.
'$predsort'(P, N, L1, L3, R) :-
    N1 is N // 2, plus(N1, N2, N),
    '$predsort'(P, N1, L1, L2, R1), '$predsort'(P, N2, L2, L3, R2),
    '$predmerge'(P, R1, R2, R).
'$sort2'(<, X1, X2, [X1,X2]).
'$sort2'(=, X1, _, [X1]).
'$sort2'(>, X1, X2, [X2,X1]).
'$predmerge'(_, [], R, R) :- !.
'$predmerge'(_, R, [], R) :- !.
'$predmerge'(P, [H1|T1], [H2|T2], Result) :-
    call(P, Delta, H1, H2), !,
    '$predmerge_'(Delta, P, H1, H2, T1, T2, Result).
'$predmerge_'(<, P, H1, H2, T1, T2, [H1|R]) :- '$predmerge'(P, T1, [H2|T2], R).
'$predmerge_'(=, P, H1, _, T1, T2, [H1|R]) :- '$predmerge'(P, T1, T2, R).
'$predmerge_'(>, P, H1, H2, T1, T2, [H2|R]) :- '$predmerge'(P, [H1|T1], T2, R).

% bagof/3 and setof/3: group the solutions by the bindings of the free variables
bagof(T, G, L) :-
    '$check_result_list'(L),
    '$free_variable_set'(T^G, G1, W),
    (   W == []
    ->  findall(T, G1, L), L \== []
    ;   findall(W-T, G1, Pairs), Pairs \== [],
        '$bagof_groups'(Pairs, W, L)
    ).

setof(T, G, S) :- bagof(T, G, L), sort(L, S).

% aggregate_all/3 (SWI's library(aggregate)): templates in slpy/logic/builtins/aggregate.py
aggregate_all(T, G, C) :- T == count, !, findall(x, G, L), length(L, C).
aggregate_all(T, G, R) :- '$aggr_template'(T, P, S), findall(P, G, L), '$aggr_list'(S, L, R).

% phrase/2,3 translate a grammar body given as a term (control constructs, terminals)
phrase(G, L) :- phrase(G, L, []).
phrase(G, L, R) :- '$dcg_call'(G, L, R, Goal), call(Goal).

concat_atom(L, R) :- atomic_list_concat(L, R).
concat_atom(L, Sep, R) :- atomic_list_concat(L, Sep, R).

% yall lambdas: [X1,...]>>Goal and Free/[X1,...]>>Goal, copied before each call
'>>'(Ps, B) :- '$lambda'(Ps, B, []).
'>>'(Ps, B, A1) :- '$lambda'(Ps, B, [A1]).
'>>'(Ps, B, A1, A2) :- '$lambda'(Ps, B, [A1,A2]).
'>>'(Ps, B, A1, A2, A3) :- '$lambda'(Ps, B, [A1,A2,A3]).
'>>'(Ps, B, A1, A2, A3, A4) :- '$lambda'(Ps, B, [A1,A2,A3,A4]).
'>>'(Ps, B, A1, A2, A3, A4, A5) :- '$lambda'(Ps, B, [A1,A2,A3,A4,A5]).
'>>'(Ps, B, A1, A2, A3, A4, A5, A6) :- '$lambda'(Ps, B, [A1,A2,A3,A4,A5,A6]).
'$lambda'(Free/Ps0, B0, Args) :- !,
    copy_term(Free/Ps0-B0, Free1/Ps-B), Free1 = Free, '$lambda_args'(Ps, Args, B).
'$lambda'(Ps0, B0, Args) :- copy_term(Ps0-B0, Ps-B), '$lambda_args'(Ps, Args, B).
'$lambda_args'([P|Ps], [A|As], B) :- !, P = A, '$lambda_args'(Ps, As, B).
'$lambda_args'(_, [], B) :- !, call(B).
'$lambda_args'([], Args, B) :- G =.. [call, B | Args], call(G).
