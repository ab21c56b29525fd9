:- module(lists, [union/3, intersection/3, nextto/3, proper_length/2,
                  max_member/3, min_member/3, subseq/3]).
% More of SWI-Prolog's library(lists): sets as unordered lists (elements compared
% by unification, duplicates kept as they come), neighbours, subsequences.

union([], L, L) :- !.
union([H|T], L, R) :- memberchk(H, L), !, union(T, L, R).
union([H|T], L, [H|R]) :- union(T, L, R).

intersection([], _, []) :- !.
intersection([X|T], L, I) :-
    (   memberchk(X, L) -> I = [X|R], intersection(T, L, R)
    ;   intersection(T, L, I)
    ).

nextto(X, Y, [X,Y|_]).
nextto(X, Y, [_|T]) :- nextto(X, Y, T).

proper_length(List, Length) :- is_list(List), length(List, Length).

% max_member(:Pred, -Max, +List): the largest element by the order Pred(X, Y) (X =< Y)
max_member(P, Max, [H|T]) :- '$max_member'(T, P, H, Max).
'$max_member'([], _, Max, Max).
'$max_member'([H|T], P, M0, Max) :-
    (   call(P, H, M0) -> M1 = M0 ; M1 = H ),
    '$max_member'(T, P, M1, Max).
min_member(P, Min, [H|T]) :- '$min_member'(T, P, H, Min).
'$min_member'([], _, Min, Min).
'$min_member'([H|T], P, M0, Min) :-
    (   call(P, M0, H) -> M1 = M0 ; M1 = H ),
    '$min_member'(T, P, M1, Min).

subseq([], [], []).
subseq([H|T], [H|S], R) :- subseq(T, S, R).
subseq([H|T], S, [H|R]) :- subseq(T, S, R).
