:- module(assoc, [empty_assoc/1, get_assoc/3, get_assoc/5, put_assoc/4,
                  list_to_assoc/2, ord_list_to_assoc/2, assoc_to_list/2,
                  assoc_to_keys/2, assoc_to_values/2, gen_assoc/3, max_assoc/3,
                  min_assoc/3, del_assoc/4, del_min_assoc/4, del_max_assoc/4,
                  map_assoc/2, map_assoc/3, is_assoc/1]).
% SWI-Prolog's library(assoc): association lists as AVL trees. The empty tree is
% `t`; a node is t(Key, Value, Balance, Left, Right) where Balance is `<` (the right
% subtree is one deeper), `=` or `>` (the left one is). Keys are compared by the
% standard order of terms; lookups, insertions and deletions take O(log N).

empty_assoc(t).

get_assoc(Key, t(K, V, _, L, R), Val) :-
    compare(O, Key, K),
    '$get_assoc'(O, Key, V, L, R, Val).
'$get_assoc'(=, _, V, _, _, V).
'$get_assoc'(<, Key, _, L, _, V) :- get_assoc(Key, L, V).
'$get_assoc'(>, Key, _, _, R, V) :- get_assoc(Key, R, V).

% get_assoc(+Key, +Assoc0, ?Val0, ?Assoc, ?Val): Assoc is Assoc0 with Val for Key's Val0
get_assoc(Key, t(K, V, B, L, R), Val0, t(K, V1, B, L1, R1), Val) :-
    compare(O, Key, K),
    (   O == (=) -> V = Val0, V1 = Val, L1 = L, R1 = R
    ;   O == (<) -> V1 = V, R1 = R, get_assoc(Key, L, Val0, L1, Val)
    ;   V1 = V, L1 = L, get_assoc(Key, R, Val0, R1, Val)
    ).

put_assoc(Key, A0, Value, A) :- '$put_assoc'(A0, Key, Value, A, _).

% '$put_assoc'(+Tree0, +Key, +Val, -Tree, -Grew): Grew is yes when Tree is deeper
'$put_assoc'(t, K, V, t(K, V, =, t, t), yes).
'$put_assoc'(t(K0, V0, B, L, R), K, V, T, Grew) :-
    compare(O, K, K0),
    '$put_assoc'(O, K0, V0, B, L, R, K, V, T, Grew).
'$put_assoc'(=, K0, _, B, L, R, _, V, t(K0, V, B, L, R), no).
'$put_assoc'(<, K0, V0, B, L, R, K, V, T, Grew) :-
    '$put_assoc'(L, K, V, L1, G1),
    (   G1 == yes -> '$left_grew'(B, K0, V0, L1, R, T, Grew)
    ;   T = t(K0, V0, B, L1, R), Grew = no
    ).
'$put_assoc'(>, K0, V0, B, L, R, K, V, T, Grew) :-
    '$put_assoc'(R, K, V, R1, G1),
    (   G1 == yes -> '$right_grew'(B, K0, V0, L, R1, T, Grew)
    ;   T = t(K0, V0, B, L, R1), Grew = no
    ).

'$left_grew'(<, K, V, L, R, t(K, V, =, L, R), no).
'$left_grew'(=, K, V, L, R, t(K, V, >, L, R), yes).
'$left_grew'(>, K, V, L, R, T, no) :- '$rebalance_left'(K, V, L, R, T, _).
'$right_grew'(>, K, V, L, R, t(K, V, =, L, R), no).
'$right_grew'(=, K, V, L, R, t(K, V, <, L, R), yes).
'$right_grew'(<, K, V, L, R, T, no) :- '$rebalance_right'(K, V, L, R, T, _).

% The left subtree L is two deeper than R: rotate. Shrunk is yes when the result is
% shallower than before the subtree grew (always on insertion; on deletion only when
% L was not balanced).
'$rebalance_left'(K, V, t(K1, V1, B1, A, C), R, T, Shrunk) :-
    (   B1 == (<)
    ->  C = t(K2, V2, B2, C1, C2),
        '$split_balance'(B2, BL, BR),
        T = t(K2, V2, =, t(K1, V1, BL, A, C1), t(K, V, BR, C2, R)), Shrunk = yes
    ;   B1 == (>)
    ->  T = t(K1, V1, =, A, t(K, V, =, C, R)), Shrunk = yes
    ;   T = t(K1, V1, <, A, t(K, V, >, C, R)), Shrunk = no
    ).
'$rebalance_right'(K, V, L, t(K1, V1, B1, C, A), T, Shrunk) :-
    (   B1 == (>)
    ->  C = t(K2, V2, B2, C1, C2),
        '$split_balance'(B2, BL, BR),
        T = t(K2, V2, =, t(K, V, BL, L, C1), t(K1, V1, BR, C2, A)), Shrunk = yes
    ;   B1 == (<)
    ->  T = t(K1, V1, =, t(K, V, =, L, C), A), Shrunk = yes
    ;   T = t(K1, V1, >, t(K, V, <, L, C), A), Shrunk = no
    ).
% balances of the two new children after a double rotation about a node of balance B
'$split_balance'(<, >, =).
'$split_balance'(=, =, =).
'$split_balance'(>, =, <).

list_to_assoc(List, Assoc) :-
    must_be(list, List),
    msort(List, Sorted),
    (   '$unique_key_pairs'(Sorted) -> true
    ;   domain_error(unique_key_pairs, List)
    ),
    length(Sorted, N),
    '$build_assoc'(N, Sorted, [], Assoc, _).

ord_list_to_assoc(Sorted, Assoc) :-
    must_be(list, Sorted),
    (   '$unique_key_pairs'(Sorted) -> true
    ;   domain_error(unique_key_pairs, Sorted)
    ),
    length(Sorted, N),
    '$build_assoc'(N, Sorted, [], Assoc, _).

'$unique_key_pairs'([]).
'$unique_key_pairs'([K-_|T]) :- '$unique_key_pairs'(T, K).
'$unique_key_pairs'([], _).
'$unique_key_pairs'([K-_|T], P) :- P @< K, '$unique_key_pairs'(T, K).

% '$build_assoc'(+N, +Pairs0, -Pairs, -Tree, -Depth): a balanced tree of N pairs
'$build_assoc'(0, L, L, t, 0) :- !.
'$build_assoc'(N, L0, L, t(K, V, B, Left, Right), D) :-
    NL is (N - 1) // 2, NR is N - 1 - NL,
    '$build_assoc'(NL, L0, [K-V|L1], Left, DL),
    '$build_assoc'(NR, L1, L, Right, DR),
    compare(B, DL, DR),
    D is max(DL, DR) + 1.

assoc_to_list(t, []).
assoc_to_list(t(K, V, _, L, R), List) :-
    assoc_to_list(L, LL), assoc_to_list(R, RL), append(LL, [K-V|RL], List).

assoc_to_keys(A, Ks) :- assoc_to_list(A, L), pairs_keys(L, Ks).
assoc_to_values(A, Vs) :- assoc_to_list(A, L), pairs_values(L, Vs).

% gen_assoc(?Key, +Assoc, ?Value): the pairs on backtracking, in key order
gen_assoc(K, t(K0, V0, _, L, R), V) :-
    (   gen_assoc(K, L, V)
    ;   K = K0, V = V0
    ;   gen_assoc(K, R, V)
    ).

max_assoc(t(K0, V0, _, _, R), K, V) :-
    (   R == t -> K = K0, V = V0 ; max_assoc(R, K, V) ).
min_assoc(t(K0, V0, _, L, _), K, V) :-
    (   L == t -> K = K0, V = V0 ; min_assoc(L, K, V) ).

is_assoc(A) :- nonvar(A), '$is_assoc'(A, _, _, _), !.
'$is_assoc'(t, none, none, 0).
'$is_assoc'(t(K, _, B, L, R), Min, Max, D) :-
    '$is_assoc'(L, Min0, Max0, DL), '$is_assoc'(R, Min1, Max1, DR),
    compare(B, DL, DR), abs(DL - DR) =< 1,
    ( Max0 == none -> Min = K ; Max0 @< K, Min = Min0 ),
    ( Min1 == none -> Max = K ; K @< Min1, Max = Max1 ),
    D is max(DL, DR) + 1.

map_assoc(_, t).
map_assoc(P, t(_, V, _, L, R)) :- map_assoc(P, L), call(P, V), map_assoc(P, R).
map_assoc(_, t, t).
map_assoc(P, t(K, V, B, L0, R0), t(K, W, B, L, R)) :-
    map_assoc(P, L0, L), call(P, V, W), map_assoc(P, R0, R).

% deletion: '$del_assoc'(+Tree0, +Key, -Val, -Tree, -Shrunk)
del_assoc(Key, A0, Val, A) :- '$del_assoc'(A0, Key, Val, A, _).

'$del_assoc'(t(K0, V0, B, L, R), K, V, T, Shrunk) :-
    compare(O, K, K0),
    '$del_assoc'(O, K0, V0, B, L, R, K, V, T, Shrunk).
'$del_assoc'(=, _, V0, B, L, R, _, V0, T, Shrunk) :-
    (   L == t -> T = R, Shrunk = yes
    ;   R == t -> T = L, Shrunk = yes
    ;   '$del_min'(R, K1, V1, R1, S1),
        '$right_shrunk'(S1, B, K1, V1, L, R1, T, Shrunk)
    ).
'$del_assoc'(<, K0, V0, B, L, R, K, V, T, Shrunk) :-
    '$del_assoc'(L, K, V, L1, S1),
    '$left_shrunk'(S1, B, K0, V0, L1, R, T, Shrunk).
'$del_assoc'(>, K0, V0, B, L, R, K, V, T, Shrunk) :-
    '$del_assoc'(R, K, V, R1, S1),
    '$right_shrunk'(S1, B, K0, V0, L, R1, T, Shrunk).

del_min_assoc(A0, K, V, A) :- '$del_min'(A0, K, V, A, _).
del_max_assoc(A0, K, V, A) :- '$del_max'(A0, K, V, A, _).

'$del_min'(t(K0, V0, B, L, R), K, V, T, Shrunk) :-
    (   L == t -> K = K0, V = V0, T = R, Shrunk = yes
    ;   '$del_min'(L, K, V, L1, S1),
        '$left_shrunk'(S1, B, K0, V0, L1, R, T, Shrunk)
    ).
'$del_max'(t(K0, V0, B, L, R), K, V, T, Shrunk) :-
    (   R == t -> K = K0, V = V0, T = L, Shrunk = yes
    ;   '$del_max'(R, K, V, R1, S1),
        '$right_shrunk'(S1, B, K0, V0, L, R1, T, Shrunk)
    ).

% the left (right) subtree of a node of balance B lost one level, or not
'$left_shrunk'(no, B, K, V, L, R, t(K, V, B, L, R), no).
'$left_shrunk'(yes, >, K, V, L, R, t(K, V, =, L, R), yes).
'$left_shrunk'(yes, =, K, V, L, R, t(K, V, <, L, R), no).
'$left_shrunk'(yes, <, K, V, L, R, T, Shrunk) :- '$rebalance_right'(K, V, L, R, T, Shrunk).
'$right_shrunk'(no, B, K, V, L, R, t(K, V, B, L, R), no).
'$right_shrunk'(yes, <, K, V, L, R, t(K, V, =, L, R), yes).
'$right_shrunk'(yes, =, K, V, L, R, t(K, V, >, L, R), no).
'$right_shrunk'(yes, >, K, V, L, R, T, Shrunk) :- '$rebalance_left'(K, V, L, R, T, Shrunk).
