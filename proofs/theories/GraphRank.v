(* The bilinear rank of a graph algebra over a field (SPEC §3):
     t(Q_G) = |V|  (its maximal two-sided ideals are exactly H_v = { x : x_v = 0 }), and
     R(Q_G) = |V| + 2|E|  (the canonical algorithm is optimal, by Alder-Strassen). *)
From Coq Require Import List Ring NArith Lia.
From Qalg Require Import Ring Sums Tensor GraphAlgebra AlderStrassen.
Import ListNotations.

Section GraphRank.
Variable F : cfield.
Add Ring Fr : (cring_th F).
Local Notation "0" := (zero F).
Local Notation "1" := (one F).
Local Infix "+" := (add F).
Local Infix "*" := (mul F).
Local Infix "-" := (sub F).

Variable nv : N.
Variable arrows : list (N * N).
Hypothesis Hvalid : valid_quiver nv arrows.

Local Notation T := (ga_table F nv arrows).
Local Notation n := (gdim nv arrows).
Local Notation J := (inJ F nv).
Local Notation gmul := (gmul F nv arrows).
Local Notation u := (gunit F nv).

(* The maximal ideal of vertex v: the kernel of the v-th coordinate. *)
Definition H (v : N) : vec F -> Prop := fun x => x v = 0.

Lemma nv_le_n : (nv <= n)%N.
Proof. unfold gdim; lia. Qed.

Ltac cases k := destruct (gmul_cases F nv arrows Hvalid k) as
  [[?Hk ?E]|[[?s [?t (?Hk & ?Hs & ?Ht & ?E)]]|[?Hk ?E]]].

Lemma H_ideal v : (v < nv)%N -> ideal F T n (H v).
Proof.
  intros Hv; constructor; unfold H.
  - intros x y Hxy Hx; rewrite <- Hxy by (pose proof nv_le_n; lia); exact Hx.
  - reflexivity.
  - intros x y Hx Hy; unfold vadd; rewrite Hx, Hy; ring.
  - intros c x Hx; unfold vscale; rewrite Hx; ring.
  - intros y x Hx; rewrite tmul_ga, gmul_vertex, Hx by exact Hv; ring.
  - intros x y Hx; rewrite tmul_ga, gmul_vertex, Hx by exact Hv; ring.
Qed.

Lemma H_proper v : (v < nv)%N -> proper (H v).
Proof.
  intros Hv Hall; specialize (Hall u); unfold H in Hall.
  rewrite gunit_vertex in Hall by exact Hv. exact (one_neq_zero F Hall).
Qed.

(* An ideal containing the unit is everything. *)
Lemma unit_absorbs I : ideal F T n I -> I u -> forall x, I x.
Proof.
  intros HI Hu x. apply (ideal_ext _ _ _ _ HI (tmul F T x u)).
  - intros k Hk; apply (ga_unit F nv arrows Hvalid x k Hk).
  - apply (ideal_mul_l _ _ _ _ HI); exact Hu.
Qed.

(* e_v lies in any ideal that contains a vector with nonzero v-th coordinate and all of H v. *)
Lemma delta_in_ideal I v x : (v < nv)%N -> ideal F T n I -> (forall y, H v y -> I y) ->
  I x -> x v <> 0 -> I (delta v).
Proof.
  intros Hv HI HHI Hx Hne.
  set (j := fun k => x k - x v * delta v k).
  assert (Hj : I j).
  { apply HHI; unfold H, j, delta. destruct (N.eq_dec v v); [ring|congruence]. }
  assert (Hxv : I (vscale (x v) (delta v))).
  { apply (ideal_ext _ _ _ _ HI (vadd x (vscale (opp F 1) j))).
    - intros k _; unfold vadd, vscale, j; ring.
    - apply (ideal_add _ _ _ _ HI); [exact Hx|apply (ideal_scale _ _ _ _ HI); exact Hj]. }
  apply (ideal_ext _ _ _ _ HI (vscale (inv F (x v)) (vscale (x v) (delta v)))).
  - intros k _; unfold vscale.
    transitivity (mul F (inv F (x v)) (x v) * delta v k); [ring|].
    rewrite inv_l by exact Hne; ring.
  - apply (ideal_scale _ _ _ _ HI); exact Hxv.
Qed.

Theorem H_maximal v : (v < nv)%N -> maximal_ideal F T n (H v).
Proof.
  intros Hv; split; [apply H_ideal; exact Hv|split; [apply H_proper; exact Hv|]].
  intros I HI HHI HIp x Hx. unfold H.
  destruct (field_dec F (x v) 0) as [Hz|Hne]; [exact Hz|exfalso].
  apply HIp, unit_absorbs; [exact HI|].
  assert (Hd : I (delta v)) by (apply (delta_in_ideal I v x); auto).
  apply (ideal_ext _ _ _ _ HI (vadd (fun k => u k - delta v k) (delta v))).
  - intros k _; unfold vadd; ring.
  - apply (ideal_add _ _ _ _ HI); [|exact Hd].
    apply HHI; unfold H, delta; rewrite gunit_vertex by exact Hv.
    destruct (N.eq_dec v v); [ring|congruence].
Qed.

Theorem H_distinct v w : (v < nv)%N -> (w < nv)%N -> v <> w ->
  ~ (forall x, H v x <-> H w x).
Proof.
  intros Hv Hw Hvw Heq. apply (one_neq_zero F).
  assert (Hd : H w (delta w)) by (apply Heq; unfold H, delta; destruct (N.eq_dec v w); congruence).
  unfold H, delta in Hd; destruct (N.eq_dec w w); congruence.
Qed.

(* Every maximal ideal contains J: otherwise M + J would be everything, and 1 = m + j would give
   1 = m (1 + j) in M because j^2 = 0. *)
Lemma J_in_maximal M : maximal_ideal F T n M -> forall x, J x -> M x.
Proof.
  intros [HM [HMp HMmax]].
  set (I := fun x => exists m j, M m /\ J j /\ veq F n x (vadd m j)).
  assert (HJ := J_ideal F nv arrows).
  assert (HwF := ga_wf F nv arrows Hvalid).
  assert (HI : ideal F T n I).
  { constructor.
    - intros x y Hxy [m [j (Hm & Hj & E)]]; exists m, j; refine (conj _ (conj _ _)); auto.
      intros k Hk; rewrite <- Hxy by exact Hk; apply E; exact Hk.
    - exists vzero, vzero; refine (conj _ (conj _ _)); [apply (ideal_zero _ _ _ _ HM)|apply (ideal_zero _ _ _ _ HJ)|].
      intros k _; unfold vzero, vadd; ring.
    - intros x y [m [j (Hm & Hj & E)]] [m' [j' (Hm' & Hj' & E')]].
      exists (vadd m m'), (vadd j j'); refine (conj _ (conj _ _));
        [apply (ideal_add _ _ _ _ HM); auto|apply (ideal_add _ _ _ _ HJ); auto|].
      intros k Hk; unfold vadd in *; rewrite E, E' by exact Hk; ring.
    - intros c x [m [j (Hm & Hj & E)]].
      exists (vscale c m), (vscale c j); refine (conj _ (conj _ _));
        [apply (ideal_scale _ _ _ _ HM); auto|apply (ideal_scale _ _ _ _ HJ); auto|].
      intros k Hk; unfold vadd, vscale in *; rewrite E by exact Hk; ring.
    - intros y x [m [j (Hm & Hj & E)]].
      exists (tmul F T y m), (tmul F T y j); refine (conj _ (conj _ _));
        [apply (ideal_mul_l _ _ _ _ HM); auto|apply (ideal_mul_l _ _ _ _ HJ); auto|].
      intros k Hk; unfold vadd; rewrite <- tmul_add_r.
      apply (tmul_ext_veq F T n); [exact HwF|intros ? ?; reflexivity|exact E].
    - intros x y [m [j (Hm & Hj & E)]].
      exists (tmul F T m y), (tmul F T j y); refine (conj _ (conj _ _));
        [apply (ideal_mul_r _ _ _ _ HM); auto|apply (ideal_mul_r _ _ _ _ HJ); auto|].
      intros k Hk; unfold vadd; rewrite <- tmul_add_l.
      apply (tmul_ext_veq F T n); [exact HwF|exact E|intros ? ?; reflexivity]. }
  assert (HIp : proper I).
  { intros Hall. destruct (Hall u) as [m [j (Hm & Hj & E)]].
    apply HMp, unit_absorbs; [exact HM|].
    apply (ideal_ext _ _ _ _ HM (tmul F T m (vadd u j))); [|apply (ideal_mul_r _ _ _ _ HM); exact Hm].
    intros k Hk; rewrite tmul_ga; unfold vadd.
    assert (Em : forall i, (i < n)%N -> m i = u i - j i) by (intros i Hi; rewrite (E i Hi); unfold vadd; ring).
    cases k; rewrite E0.
    + rewrite Em, Hj, gunit_vertex by (assumption || lia); ring.
    + rewrite (Em s), (Em k), (Hj s), (Hj t), (gunit_vertex F nv s), (gunit_vertex F nv t),
        (gunit_arrow F nv k) by (pose proof nv_le_n; lia). ring.
    + lia. }
  intros x Hx. apply (HMmax I HI); [|exact HIp|].
  - intros y Hy; exists y, vzero; refine (conj _ (conj _ _)); [exact Hy|intros v _; reflexivity|].
    intros k _; unfold vadd, vzero; ring.
  - exists vzero, x; refine (conj _ (conj _ _)); [apply (ideal_zero _ _ _ _ HM)|exact Hx|].
    intros k _; unfold vadd, vzero; ring.
Qed.

(* A maximal ideal that misses e_v is H_v. *)
Lemma maximal_is_H M v : maximal_ideal F T n M -> (v < nv)%N -> ~ M (delta v) ->
  forall x, M x <-> H v x.
Proof.
  intros HMm Hv Hd.
  destruct HMm as [HM [HMp HMmax]] eqn:Hmax_eq.
  assert (HJM := J_in_maximal M HMm).
  assert (Hsub : forall x, M x -> H v x).
  { intros x Hx. unfold H. destruct (field_dec F (x v) 0) as [Hz|Hne]; [exact Hz|exfalso].
    apply Hd.
    set (w := tmul F T (tmul F T (delta v) x) (delta v)).
    assert (Hw : M w) by (apply (ideal_mul_r _ _ _ _ HM), (ideal_mul_l _ _ _ _ HM); exact Hx).
    (* w - x_v e_v has no vertex component, so it lies in J, hence in M. *)
    assert (Hj : M (fun k => w k - x v * delta v k)).
    { apply HJM. intros k Hk. unfold w. rewrite tmul_ga, gmul_vertex by exact Hk.
      rewrite tmul_ga, gmul_vertex by exact Hk. unfold delta.
      destruct (N.eq_dec k v) as [->|]; ring. }
    assert (Hxv : M (vscale (x v) (delta v))).
    { apply (ideal_ext _ _ _ _ HM (vadd w (vscale (opp F 1) (fun k => w k - x v * delta v k)))).
      - intros k _; unfold vadd, vscale; ring.
      - apply (ideal_add _ _ _ _ HM); [exact Hw|apply (ideal_scale _ _ _ _ HM); exact Hj]. }
    apply (ideal_ext _ _ _ _ HM (vscale (inv F (x v)) (vscale (x v) (delta v)))).
    - intros k _; unfold vscale.
      transitivity (mul F (inv F (x v)) (x v) * delta v k); [ring|].
      rewrite inv_l by exact Hne; ring.
    - apply (ideal_scale _ _ _ _ HM); exact Hxv. }
  intros x; split; [apply Hsub|].
  apply (HMmax (H v)); [apply H_ideal; exact Hv|exact Hsub|apply H_proper; exact Hv].
Qed.

(* t(Q_G) <= |V|: no maximal ideal differs from all the H_v. *)
Theorem ga_maximal_ideals : at_most_maximal_ideals F T n (N.to_nat nv).
Proof.
  exists (map H (basis nv)); split; [rewrite map_length, basis_length; lia|].
  intros M HMm Hall.
  assert (Hdn : forall v, (v < nv)%N -> ~ ~ M (delta v)).
  { intros v Hv Hn. apply (Hall (H v)); [apply in_map, in_basis; exact Hv|].
    apply maximal_is_H; assumption. }
  set (pu := fun m : N => (fun k : N => if N.ltb k m then 1 else 0) : vec F).
  assert (Hpu : forall m, (m <= nv)%N -> ~ ~ M (pu m)).
  { destruct HMm as [HM _].
    induction m as [|m IH] using N.peano_ind; intros Hm Hn.
    - apply Hn, (ideal_ext _ _ _ _ HM vzero); [|apply (ideal_zero _ _ _ _ HM)].
      intros k _; unfold pu, vzero; destruct (N.ltb_spec k 0); [lia|reflexivity].
    - apply (IH ltac:(lia)); intros HMm'. apply (Hdn m ltac:(lia)); intros HMd.
      apply Hn, (ideal_ext _ _ _ _ HM (vadd (pu m) (delta m))); [|apply (ideal_add _ _ _ _ HM); auto].
      intros k _; unfold pu, vadd, delta.
      destruct (N.ltb_spec k m), (N.ltb_spec k (N.succ m)), (N.eq_dec k m); try lia; ring. }
  apply (Hpu nv (N.le_refl _)); intros HMu.
  destruct HMm as [HM [HMp _]]. apply HMp, unit_absorbs; [exact HM|exact HMu].
Qed.

(* R(Q_G) = |V| + 2|E| over every field: the canonical algorithm computes the product with
   |V| + 2|E| multiplications, and (Alder-Strassen) no bilinear algorithm uses fewer. *)
Theorem graph_algebra_rank :
  (computes F T n (canonical F T) /\
   length (canonical F T) = (N.to_nat nv + 2 * length arrows)%nat) /\
  forall A, computes F T n A -> (N.to_nat nv + 2 * length arrows <= length A)%nat.
Proof.
  split; [apply ga_canonical; exact Hvalid|].
  intros A HA.
  pose proof (alder_strassen F n T (ga_wf F nv arrows Hvalid) (ga_associative F nv arrows Hvalid)
                (ex_intro _ u (ga_unit F nv arrows Hvalid)) (N.to_nat nv) ga_maximal_ideals A HA) as B.
  unfold gdim, ne in B; rewrite N2Nat.inj_add, Nat2N.id in B. lia.
Qed.

End GraphRank.
