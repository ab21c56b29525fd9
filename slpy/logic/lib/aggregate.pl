:- module(aggregate, [aggregate/3, aggregate/4, aggregate_all/4]).
% The rest of SWI-Prolog's library(aggregate) (aggregate_all/3 is in the core
% library). aggregate/3 groups the solutions by the free variables of the goal, as
% bagof/3 does (V^Goal quantifies V); the 4-argument forms count a solution once per
% distinct Discriminator-Template pair.

aggregate(T, G, R) :- '$aggr_template'(T, P, S), bagof(P, G, L), '$aggr_list'(S, L, R).

aggregate(T, D, G, R) :-
    '$aggr_template'(T, P, S), setof(D-P, G, Pairs), pairs_values(Pairs, L),
    '$aggr_list'(S, L, R).

aggregate_all(T, D, G, R) :-
    '$aggr_template'(T, P, S), findall(D-P, G, Pairs0), sort(Pairs0, Pairs),
    pairs_values(Pairs, L), '$aggr_list'(S, L, R).
