:- module(random, [random_permutation/2]).
% random_permutation(?List, ?Permutation): a permutation drawn uniformly, as a
% sequence of random_select/3 draws (each a choice point of the proof tree, so the
% proof's probability is 1/N!). Either argument may be the given list.

random_permutation(L, P) :- is_list(L), !, '$random_permutation'(L, P).
random_permutation(L, P) :- must_be(list, P), '$random_permutation'(P, L).

'$random_permutation'([], []).
'$random_permutation'([H|T], [X|P]) :-
    random_select(X, [H|T], R),
    '$random_permutation'(R, P).
