(* The one assumption of the qalg theories.

   Alder, A. and Strassen, V.: "On the algorithmic complexity of associative algebras",
   Theoretical Computer Science 15 (1981), 201-211.  Main theorem: for every finite-dimensional
   associative algebra A with unit over a field F, the bilinear (rank) complexity satisfies
       R(A) >= 2 dim A - t(A),
   where t(A) is the number of maximal two-sided ideals of A.

   Stated here for the algebras the theories can express: F^n with a product given by structure
   constants [T] (indices < n), associative and with a two-sided unit.  "t(A) <= t" is
   [at_most_maximal_ideals T n t]; since R(A) >= 2 dim A - t(A) >= 2 dim A - t whenever
   t(A) <= t, this form is equivalent to the theorem.  The inequality is written without
   subtraction: every bilinear algorithm computing the product has length >= 2n - t. *)
From Coq Require Import List NArith.
From Qalg Require Import Ring Sums Tensor.

Axiom alder_strassen :
  forall (F : cfield) (n : N) (T : table F),
    wf F T n -> associative F T n -> unital F T n ->
    forall t, at_most_maximal_ideals F T n t ->
    forall A, computes F T n A -> (2 * N.to_nat n <= length A + t)%nat.
