(* Finite sums over lists in a commutative ring: the only summation the theories need. *)
From Coq Require Import List Ring NArith Lia FinFun.
From Qalg Require Import Ring.
Import ListNotations.

Section Sums.
Variable R : cring.
Add Ring Rr : (cring_th R).
Local Notation "0" := (zero R).
Local Infix "+" := (add R).
Local Infix "*" := (mul R).

Definition sum {A : Type} (l : list A) (f : A -> R) : R :=
  fold_right (fun a acc => f a + acc) 0 l.

Lemma sum_nil {A} (f : A -> R) : sum [] f = 0.
Proof. reflexivity. Qed.

Lemma sum_cons {A} (a : A) l f : sum (a :: l) f = f a + sum l f.
Proof. reflexivity. Qed.

Lemma sum_app {A} (l1 l2 : list A) f : sum (l1 ++ l2) f = sum l1 f + sum l2 f.
Proof.
  induction l1 as [|a l1 IH]; simpl app; rewrite ?sum_nil, ?sum_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sum_ext_in {A} (l : list A) f g :
  (forall a, In a l -> f a = g a) -> sum l f = sum l g.
Proof.
  induction l as [|a l IH]; intros H; rewrite ?sum_nil, ?sum_cons; [reflexivity|].
  rewrite H by (left; reflexivity); rewrite IH by (intros; apply H; right; auto).
  reflexivity.
Qed.

Lemma sum_ext {A} (l : list A) f g : (forall a, f a = g a) -> sum l f = sum l g.
Proof. intros H; apply sum_ext_in; auto. Qed.

Lemma sum_zero {A} (l : list A) f : (forall a, In a l -> f a = 0) -> sum l f = 0.
Proof.
  induction l as [|a l IH]; intros H; rewrite ?sum_nil, ?sum_cons; [reflexivity|].
  rewrite IH by (intros; apply H; right; auto).
  rewrite H by (left; reflexivity). ring.
Qed.

Lemma sum_add {A} (l : list A) f g : sum l (fun a => f a + g a) = sum l f + sum l g.
Proof.
  induction l as [|a l IH]; rewrite ?sum_nil, ?sum_cons; [ring|]. rewrite IH; ring.
Qed.

Lemma sum_opp {A} (l : list A) f : sum l (fun a => opp R (f a)) = opp R (sum l f).
Proof.
  induction l as [|a l IH]; rewrite ?sum_nil, ?sum_cons; [ring|]. rewrite IH; ring.
Qed.

Lemma sum_scale_l {A} (l : list A) c f : c * sum l f = sum l (fun a => c * f a).
Proof.
  induction l as [|a l IH]; rewrite ?sum_nil, ?sum_cons; [ring|]. rewrite <- IH; ring.
Qed.

Lemma sum_scale_r {A} (l : list A) c f : sum l f * c = sum l (fun a => f a * c).
Proof.
  induction l as [|a l IH]; rewrite ?sum_nil, ?sum_cons; [ring|]. rewrite <- IH; ring.
Qed.

Lemma sum_map {A B} (h : A -> B) l f : sum (map h l) f = sum l (fun a => f (h a)).
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sum_nil, ?sum_cons; [reflexivity|].
  rewrite IH; reflexivity.
Qed.

Lemma sum_flat_map {A B} (h : A -> list B) l f :
  sum (flat_map h l) f = sum l (fun a => sum (h a) f).
Proof.
  induction l as [|a l IH]; simpl flat_map; rewrite ?sum_nil, ?sum_cons; [reflexivity|].
  rewrite sum_app, IH; reflexivity.
Qed.

Lemma sum_swap {A B} (l1 : list A) (l2 : list B) f :
  sum l1 (fun a => sum l2 (fun b => f a b)) = sum l2 (fun b => sum l1 (fun a => f a b)).
Proof.
  induction l1 as [|a l1 IH]; rewrite ?sum_nil, ?sum_cons.
  - symmetry; apply sum_zero; intros; apply sum_nil.
  - rewrite IH, <- sum_add. apply sum_ext; intros b; rewrite sum_cons; reflexivity.
Qed.

Lemma sum_prod2 {A B} (l1 : list A) (l2 : list B) f g :
  sum l1 f * sum l2 g = sum l1 (fun a => sum l2 (fun b => f a * g b)).
Proof.
  rewrite sum_scale_r. apply sum_ext; intros a. apply sum_scale_l.
Qed.

Lemma sum_prod3 {A B C} (l1 : list A) (l2 : list B) (l3 : list C) f g h :
  sum l1 f * sum l2 g * sum l3 h =
  sum l1 (fun a => sum l2 (fun b => sum l3 (fun c => f a * g b * h c))).
Proof.
  rewrite sum_prod2, sum_scale_r. apply sum_ext; intros a.
  rewrite sum_scale_r. apply sum_ext; intros b. apply sum_scale_l.
Qed.

(* A sum picking out one element of a duplicate-free list: the delta-function lemma. *)
Lemma sum_delta {A} (dec : forall x y : A, {x = y} + {x <> y}) (l : list A) a g :
  NoDup l -> In a l -> sum l (fun b => if dec b a then g b else 0) = g a.
Proof.
  induction l as [|b l IH]; intros Hnd Hin; [destruct Hin|].
  inversion Hnd as [|? ? Hnot Hnd']; subst. rewrite sum_cons.
  destruct (dec b a) as [->|Hne].
  - rewrite (sum_zero l); [ring|].
    intros c Hc; destruct (dec c a) as [->|]; [contradiction|reflexivity].
  - destruct Hin as [->|Hin]; [contradiction|]. rewrite IH by assumption; ring.
Qed.

Lemma sum_delta_out {A} (dec : forall x y : A, {x = y} + {x <> y}) (l : list A) a g :
  ~ In a l -> sum l (fun b => if dec b a then g b else 0) = 0.
Proof.
  intros Hn; apply sum_zero; intros b Hb; destruct (dec b a) as [->|]; [contradiction|reflexivity].
Qed.

End Sums.

(* The basis indices 0 .. n-1 of an n-dimensional algebra, as binary numbers. *)
Definition basis (n : N) : list N := map N.of_nat (seq 0 (N.to_nat n)).

Lemma in_basis n k : In k (basis n) <-> (k < n)%N.
Proof.
  unfold basis; rewrite in_map_iff; split.
  - intros [m [<- Hm]]; apply in_seq in Hm; lia.
  - intros Hk; exists (N.to_nat k); split; [lia|]. apply in_seq; lia.
Qed.

Lemma basis_nodup n : NoDup (basis n).
Proof.
  unfold basis; apply FinFun.Injective_map_NoDup; [intros a b; lia|apply seq_NoDup].
Qed.

Lemma basis_length n : length (basis n) = N.to_nat n.
Proof. unfold basis; rewrite map_length, seq_length; reflexivity. Qed.
