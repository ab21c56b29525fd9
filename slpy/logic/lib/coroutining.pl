:- module(coroutining, [freeze/2, when/2, '$freeze'/2, '$when'/3, '$dif'/2]).
% freeze/2 and when/2 (dif/2, frozen/2 and the suspension itself are in
% slpy/logic/coroutining.py). A woken goal looks at its variables again.

freeze(X, G) :- var(X), !, '$suspend'(X, '$freeze'(X, G)).
freeze(_, G) :- call(G).

'$freeze'(X, G) :- freeze(X, G).

% when(+Condition, :Goal): Goal runs once, when Condition holds (nonvar(X),
% ground(X), ?=(X, Y), and conjunctions and disjunctions of these)
when(Cond, G) :- '$when'(Cond, G, _).

'$when'(Cond, G, Done) :-
    (   nonvar(Done) -> true
    ;   '$when_cond'(Cond, G, Done, R),
        (   R == true -> Done = true, call(G) ; true )
    ).

'$dif'(X, Y) :- dif(X, Y).
