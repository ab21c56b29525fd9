:- module(pairs, [map_list_to_pairs/3, transpose_pairs/2]).
% The rest of SWI-Prolog's library(pairs) (pairs_keys_values/3, pairs_keys/2 and
% pairs_values/2 are in the core library).

map_list_to_pairs(F, L, Pairs) :- maplist([X, K-X]>>call(F, X, K), L, Pairs).

% Value-Key for each Key-Value, keysorted on the new keys
transpose_pairs(Pairs, Transposed) :-
    maplist([K-V, V-K]>>true, Pairs, Flipped),
    keysort(Flipped, Transposed).
