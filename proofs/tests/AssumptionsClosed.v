(* Everything except the rank lower bound is proved outright: no axiom at all. *)
From Qalg Require Import Tensor GraphAlgebra GraphRank Certify.
Print Assumptions canonical_computes.
Print Assumptions ga_associative.
Print Assumptions ga_unit.
Print Assumptions J_ideal.
Print Assumptions J_square_zero.
Print Assumptions idempotents_orthogonal.
Print Assumptions idempotents_sum.
Print Assumptions quotient_spanned.
Print Assumptions quotient_independent.
Print Assumptions quotient_commutative.
Print Assumptions ga_canonical.
Print Assumptions H_maximal.
Print Assumptions H_distinct.
Print Assumptions ga_maximal_ideals.
Print Assumptions zero_check_sound.
Print Assumptions assoc_check_sound.
Print Assumptions unit_check_sound.
Print Assumptions alg_check_sound.
Print Assumptions ideal_check_sound.
Print Assumptions square_zero_check_sound.
Print Assumptions graph_check_same.
