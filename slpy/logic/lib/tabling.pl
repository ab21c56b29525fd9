:- module(tabling, ['$tbl_call'/2]).
% The driver of tabled predicates (slpy/logic/tabling.py): a call of a tabled
% predicate p/N runs '$tbl_call'(p(...), 'p tabled'(...)).

'$tbl_call'(Goal, Impl) :-
    '$tbl_table'(Goal, Impl, T, Status),
    '$tbl_run'(Status, T, Goal, Impl).

'$tbl_run'(direct, _, _, Impl) :- call(Impl).
'$tbl_run'(complete, T, Goal, _) :- '$tbl_answer'(T, Goal).
'$tbl_run'(active, T, Goal, _) :- '$tbl_answer'(T, Goal).
'$tbl_run'(fresh, T, Goal, Impl) :-
    '$tbl_push'(T),
    catch('$tbl_fixpoint'(T, Goal, Impl), E, ('$tbl_abort'(T), throw(E))),
    '$tbl_pop'(T),
    '$tbl_answer'(T, Goal).

% run the clauses, adding the answers, until a pass adds none
'$tbl_fixpoint'(T, Goal, Impl) :-
    repeat,
    '$tbl_iteration'(T),
    (   call(Impl), '$tbl_add'(T, Goal)
    ;   '$tbl_done'(T)
    ),
    !.
