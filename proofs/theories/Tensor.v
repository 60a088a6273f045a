(* Finite-dimensional algebras given by sparse structure constants, bilinear algorithms, and
   two-sided ideals (SPEC §1-§3).

   An algebra of dimension n over a commutative ring R is R^n (vectors N -> R, of which only the
   coordinates 0 .. n-1 count: [veq n]) with the product given by a list of entries (i, j, k, c),
   meaning c_ij^k += c.  The product of vectors is the bilinear extension
       (x y)_k = sum over entries (i, j, k, c) of c x_i y_j,
   so every definition below is about the algebra itself, not about a particular encoding. *)
From Coq Require Import List Ring NArith Lia.
From Qalg Require Import Ring Sums.
Import ListNotations.

Definition entry (A : Type) : Type := (N * N * N * A)%type.
Definition ei {A} (e : entry A) : N := fst (fst (fst e)).
Definition ej {A} (e : entry A) : N := snd (fst (fst e)).
Definition ek {A} (e : entry A) : N := snd (fst e).
Definition ec {A} (e : entry A) : A := snd e.

Section Tensor.
Variable R : cring.
Add Ring Rr : (cring_th R).
Local Notation "0" := (zero R).
Local Notation "1" := (one R).
Local Infix "+" := (add R).
Local Infix "*" := (mul R).

Definition vec : Type := N -> R.
Definition table : Type := list (entry R).

Definition veq (n : N) (x y : vec) : Prop := forall k, (k < n)%N -> x k = y k.
Definition vzero : vec := fun _ => 0.
Definition vadd (x y : vec) : vec := fun k => x k + y k.
Definition vscale (c : R) (x : vec) : vec := fun k => c * x k.
Definition delta (i : N) : vec := fun k => if N.eq_dec k i then 1 else 0.
(* A linear form given by its coefficient vector, applied to x. *)
Definition dot (n : N) (a x : vec) : R := sum R (basis n) (fun k => a k * x k).

Definition tmul (T : table) (x y : vec) : vec :=
  fun k => sum R T (fun e => if N.eq_dec (ek e) k then ec e * x (ei e) * y (ej e) else 0).

(* Every index of the table is a basis index. *)
Definition wf (T : table) (n : N) : Prop :=
  forall e, In e T -> (ei e < n /\ ej e < n /\ ek e < n)%N.

Definition associative (T : table) (n : N) : Prop :=
  forall x y z k, (k < n)%N -> tmul T (tmul T x y) z k = tmul T x (tmul T y z) k.

Definition unit_of (T : table) (n : N) (u : vec) : Prop :=
  forall x k, (k < n)%N -> tmul T u x k = x k /\ tmul T x u k = x k.

Definition unital (T : table) (n : N) : Prop := exists u, unit_of T n u.

(* A bilinear algorithm: triples (alpha, beta, gamma) with mu(x, y) = sum alpha(x) beta(y) gamma
   (SPEC §3); its length is the number of triples, i.e. of multiplications. *)
Definition triple : Type := (vec * vec * vec)%type.

Definition alg_eval (n : N) (A : list triple) (x y : vec) : vec :=
  fun k => sum R A (fun t => dot n (fst (fst t)) x * dot n (snd (fst t)) y * snd t k).

Definition computes (T : table) (n : N) (A : list triple) : Prop :=
  forall x y k, (k < n)%N -> alg_eval n A x y k = tmul T x y k.

(* Two-sided ideals: subsets of R^n (closed under [veq n]) that are submodules and absorb
   products from both sides. *)
Record ideal (T : table) (n : N) (I : vec -> Prop) : Prop := {
  ideal_ext : forall x y, veq n x y -> I x -> I y;
  ideal_zero : I vzero;
  ideal_add : forall x y, I x -> I y -> I (vadd x y);
  ideal_scale : forall c x, I x -> I (vscale c x);
  ideal_mul_l : forall y x, I x -> I (tmul T y x);
  ideal_mul_r : forall x y, I x -> I (tmul T x y)
}.

Definition proper (I : vec -> Prop) : Prop := ~ (forall x, I x).

Definition maximal_ideal (T : table) (n : N) (M : vec -> Prop) : Prop :=
  ideal T n M /\ proper M /\
  forall I, ideal T n I -> (forall x, M x -> I x) -> proper I -> forall x, I x -> M x.

(* "The algebra has at most t maximal two-sided ideals": a list of at most t subsets such that
   no maximal ideal differs from all of them.  Classically this is "every maximal ideal is one of
   the listed subsets"; the doubly negated form lets it be proved without classical axioms. *)
Definition at_most_maximal_ideals (T : table) (n : N) (t : nat) : Prop :=
  exists l : list (vec -> Prop), length l <= t /\
    forall M, maximal_ideal T n M -> ~ (forall I, In I l -> ~ (forall x, M x <-> I x)).

(* ---- Basic facts ---- *)

Lemma tmul_ext T x x' y y' k :
  (forall i, x i = x' i) -> (forall j, y j = y' j) -> tmul T x y k = tmul T x' y' k.
Proof.
  intros Hx Hy; unfold tmul; apply sum_ext; intros e.
  destruct (N.eq_dec (ek e) k); [rewrite Hx, Hy|]; reflexivity.
Qed.

Lemma tmul_ext_veq T n x x' y y' k :
  wf T n -> veq n x x' -> veq n y y' -> tmul T x y k = tmul T x' y' k.
Proof.
  intros Hwf Hx Hy; unfold tmul; apply sum_ext_in; intros e He.
  destruct (Hwf e He) as (Hi & Hj & _).
  destruct (N.eq_dec (ek e) k); [rewrite Hx, Hy by assumption|]; reflexivity.
Qed.

Lemma tmul_add_r T y a b k : tmul T y (vadd a b) k = tmul T y a k + tmul T y b k.
Proof.
  unfold tmul, vadd; rewrite <- sum_add; apply sum_ext; intros e.
  destruct (N.eq_dec (ek e) k); ring.
Qed.

Lemma tmul_add_l T a b y k : tmul T (vadd a b) y k = tmul T a y k + tmul T b y k.
Proof.
  unfold tmul, vadd; rewrite <- sum_add; apply sum_ext; intros e.
  destruct (N.eq_dec (ek e) k); ring.
Qed.

Lemma dot_delta n i x : (i < n)%N -> dot n (delta i) x = x i.
Proof.
  intros Hi; unfold dot, delta.
  rewrite (sum_ext R _ _ (fun k => if N.eq_dec k i then x k else 0)).
  - apply sum_delta; [apply basis_nodup|apply in_basis; exact Hi].
  - intros k; destruct (N.eq_dec k i); ring.
Qed.

Lemma computes_ext T T' n A :
  (forall x y k, (k < n)%N -> tmul T x y k = tmul T' x y k) -> computes T n A -> computes T' n A.
Proof. intros E H x y k Hk; rewrite <- E by exact Hk; apply H; exact Hk. Qed.

(* ---- The canonical algorithm: one multiplication per nonzero structure constant ---- *)

Definition canonical (T : table) : list triple :=
  map (fun e => (delta (ei e), delta (ej e), vscale (ec e) (delta (ek e)))) T.

Lemma canonical_length T : length (canonical T) = length T.
Proof. apply map_length. Qed.

Theorem canonical_computes T n : wf T n -> computes T n (canonical T).
Proof.
  intros Hwf x y k Hk; unfold alg_eval, canonical, tmul; rewrite sum_map.
  apply sum_ext_in; intros e He; simpl.
  destruct (Hwf e He) as (Hi & Hj & _).
  rewrite !dot_delta by assumption. unfold vscale, delta.
  destruct (N.eq_dec k (ek e)), (N.eq_dec (ek e) k); subst; try congruence; ring.
Qed.

End Tensor.

Arguments vzero {R}.
Arguments vadd {R}.
Arguments vscale {R}.
Arguments delta {R}.
Arguments proper {R}.
