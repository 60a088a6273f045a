(* Coefficient structures for the qalg theories.

   [cring] bundles a commutative ring (Coq's [ring_theory] is the commutative-ring axiom set,
   with Leibniz equality).  [cfield] adds what a field needs on top: 1 <> 0, inverses of nonzero
   elements, and decidable equality (every field qalg computes over, Q and GF(p), has it; the
   hypothesis only narrows which fields the Alder-Strassen axiom speaks about). *)
From Coq Require Import Ring ZArith.

Record cring := {
  carrier :> Type;
  zero : carrier;
  one : carrier;
  add : carrier -> carrier -> carrier;
  mul : carrier -> carrier -> carrier;
  sub : carrier -> carrier -> carrier;
  opp : carrier -> carrier;
  cring_th : ring_theory zero one add mul sub opp (@eq carrier)
}.

Record cfield := {
  fring :> cring;
  inv : fring -> fring;
  one_neq_zero : one fring <> zero fring;
  inv_l : forall x, x <> zero fring -> mul fring (inv x) x = one fring;
  field_dec : forall x y : fring, {x = y} + {x <> y}
}.

(* The integers as a [cring]: instance tables are written over Z and mapped into any ring. *)
Definition Zring : cring :=
  {| carrier := Z; zero := 0%Z; one := 1%Z; add := Z.add; mul := Z.mul; sub := Z.sub;
     opp := Z.opp; cring_th := Zth |}.
