(* The graph algebra Q_G of a finite quiver (SPEC §1), over any commutative ring R.

   A quiver is given as nv vertices 0 .. nv-1 and a list of arrows (s, t) with s, t < nv; every
   finite quiver, parallel arrows and loops included, is of this form.  The basis is e_0 .. e_{nv-1}
   followed by one element per arrow (arrow number a has basis index nv + a), as in qalg's tables.
   The structure constants are e_v e_v = e_v, e_{s(a)} a = a, a e_{t(a)} = a, all others 0. *)
From Coq Require Import List Ring NArith Lia.
From Qalg Require Import Ring Sums Tensor.
Import ListNotations.

Section GraphAlgebra.
Variable R : cring.
Add Ring Rr : (cring_th R).
Local Notation "0" := (zero R).
Local Notation "1" := (one R).
Local Infix "+" := (add R).
Local Infix "*" := (mul R).
Local Infix "-" := (sub R).

Variable nv : N.
Variable arrows : list (N * N).

Definition ne : N := N.of_nat (length arrows).
Definition gdim : N := (nv + ne)%N.

Fixpoint arrow_entries (b : N) (l : list (N * N)) : table R :=
  match l with
  | [] => []
  | (s, t) :: l' => (s, b, b, 1) :: (b, t, b, 1) :: arrow_entries (N.succ b) l'
  end.

(* The structure tensor of Q_G: |V| + 2|E| entries, all equal to 1. *)
Definition ga_table : table R :=
  map (fun v => (v, v, v, 1)) (basis nv) ++ arrow_entries nv arrows.

Definition valid_quiver : Prop := forall s t, In (s, t) arrows -> (s < nv /\ t < nv)%N.

Definition arrow_at (k : N) : option (N * N) :=
  if N.ltb k nv then None else nth_error arrows (N.to_nat (k - nv)).

(* The product in closed form: (xy)_v = x_v y_v, (xy)_a = x_{s(a)} y_a + x_a y_{t(a)}. *)
Definition gmul (x y : vec R) : vec R := fun k =>
  if N.ltb k nv then x k * y k else
  match arrow_at k with Some (s, t) => x s * y k + x k * y t | None => 0 end.

Definition gunit : vec R := fun k => if N.ltb k nv then 1 else 0.

(* J = span of the arrows = vectors with every vertex coordinate zero. *)
Definition inJ (x : vec R) : Prop := forall v, (v < nv)%N -> x v = 0.

Lemma arrow_entries_sum l b x y k :
  sum R (arrow_entries b l) (fun e => if N.eq_dec (ek e) k then ec e * x (ei e) * y (ej e) else 0)
  = if N.ltb k b then 0 else
    match nth_error l (N.to_nat (k - b)) with Some (s, t) => x s * y k + x k * y t | None => 0 end.
Proof.
  revert b; induction l as [|[s t] l IH]; intros b.
  - rewrite sum_nil. destruct (N.ltb k b); [reflexivity|]. destruct (N.to_nat (k - b)); reflexivity.
  - simpl arrow_entries; rewrite !sum_cons, IH. unfold ek, ec, ei, ej; simpl.
    destruct (N.eq_dec b k) as [<-|Hne].
    + rewrite N.ltb_irrefl. replace (N.to_nat (b - b)) with 0%nat by lia.
      replace (N.ltb b (N.succ b)) with true by (symmetry; apply N.ltb_lt; lia). simpl; ring.
    + destruct (N.ltb_spec k b), (N.ltb_spec k (N.succ b)); try lia; [ring|].
      replace (N.to_nat (k - b)) with (S (N.to_nat (k - N.succ b))) by lia. simpl; ring.
Qed.

Lemma tmul_ga x y k : tmul R ga_table x y k = gmul x y k.
Proof.
  unfold tmul, ga_table. rewrite sum_app, sum_map, arrow_entries_sum.
  unfold ek, ec, ei, ej; simpl. unfold gmul, arrow_at. destruct (N.ltb_spec k nv) as [Hk|Hk].
  - rewrite (sum_delta R N.eq_dec) by (apply basis_nodup || (apply in_basis; exact Hk)). ring.
  - rewrite (sum_delta_out R N.eq_dec) by (rewrite in_basis; lia). ring.
Qed.

Lemma gmul_ext x x' y y' k :
  (forall i, x i = x' i) -> (forall j, y j = y' j) -> gmul x y k = gmul x' y' k.
Proof.
  intros Hx Hy; unfold gmul; rewrite !Hx, !Hy.
  destruct (arrow_at k) as [[s t]|]; rewrite ?Hx, ?Hy; reflexivity.
Qed.

Lemma gmul_vertex x y v : (v < nv)%N -> gmul x y v = x v * y v.
Proof. intros Hv; unfold gmul; replace (N.ltb v nv) with true by (symmetry; apply N.ltb_lt; lia); reflexivity. Qed.

Hypothesis Hvalid : valid_quiver.

(* Every index is a vertex, an arrow (with its endpoints), or outside the basis. *)
Lemma gmul_cases k :
  ((k < nv)%N /\ forall x y, gmul x y k = x k * y k) \/
  (exists s t, (nv <= k < gdim)%N /\ (s < nv)%N /\ (t < nv)%N /\
     forall x y, gmul x y k = x s * y k + x k * y t) \/
  ((gdim <= k)%N /\ forall x y, gmul x y k = 0).
Proof.
  unfold gmul, arrow_at. destruct (N.ltb_spec k nv) as [Hk|Hk]; [left; split; auto|right].
  destruct (nth_error arrows (N.to_nat (k - nv))) as [[s t]|] eqn:E.
  - left; exists s, t. destruct (Hvalid _ _ (nth_error_In _ _ E)) as [Hs Ht].
    assert (N.to_nat (k - nv) < length arrows)%nat
      by (apply nth_error_Some; rewrite E; discriminate).
    unfold gdim, ne; repeat split; auto; lia.
  - right; split; auto. apply nth_error_None in E. unfold gdim, ne; lia.
Qed.

Ltac cases k := destruct (gmul_cases k) as
  [[?Hk ?E]|[[?s [?t (?Hk & ?Hs & ?Ht & ?E)]]|[?Hk ?E]]].

Theorem gmul_assoc x y z k : gmul (gmul x y) z k = gmul x (gmul y z) k.
Proof.
  cases k; rewrite ?E, ?E; try reflexivity; [ring|].
  rewrite !(gmul_vertex _ _ s), !(gmul_vertex _ _ t) by assumption. ring.
Qed.

Theorem ga_wf : wf R ga_table gdim.
Proof.
  assert (Harr : forall l b, (forall s t, In (s, t) l -> (s < b /\ t < b)%N) ->
            forall e, In e (arrow_entries b l) ->
            (ei e < b + N.of_nat (length l) /\ ej e < b + N.of_nat (length l) /\
             ek e < b + N.of_nat (length l))%N).
  { induction l as [|[s t] l IH]; intros b Hl e He; [destruct He|].
    change (length ((s, t) :: l)) with (S (length l)); rewrite Nat2N.inj_succ.
    destruct (Hl s t (or_introl eq_refl)) as [Hs Ht].
    destruct He as [<-|[<-|He]]; [unfold ei, ej, ek; cbn [fst snd]; lia ..|].
    assert (IH' := IH (N.succ b) (fun s' t' H => let (a, b') := Hl s' t' (or_intror H) in
                                    conj (N.lt_lt_succ_r _ _ a) (N.lt_lt_succ_r _ _ b')) e He).
    lia. }
  intros e He. unfold ga_table in He; apply in_app_or in He. destruct He as [He|He].
  - apply in_map_iff in He; destruct He as [v [<- Hv]]; apply in_basis in Hv.
    unfold ei, ej, ek, gdim; simpl; lia.
  - unfold gdim, ne; apply (Harr arrows nv Hvalid e He).
Qed.

Theorem ga_associative : associative R ga_table gdim.
Proof.
  intros x y z k _. rewrite !tmul_ga.
  rewrite (gmul_ext _ (gmul x y) z z) by (intros; apply tmul_ga || reflexivity).
  rewrite (gmul_ext x x _ (gmul y z)) by (intros; apply tmul_ga || reflexivity).
  apply gmul_assoc.
Qed.

Lemma gunit_vertex v : (v < nv)%N -> gunit v = 1.
Proof. intros; unfold gunit; replace (N.ltb v nv) with true by (symmetry; apply N.ltb_lt; lia); reflexivity. Qed.

Lemma gunit_arrow k : (nv <= k)%N -> gunit k = 0.
Proof. intros; unfold gunit; replace (N.ltb k nv) with false by (symmetry; apply N.ltb_ge; lia); reflexivity. Qed.

(* 1 = sum of the e_v is a two-sided unit. *)
Theorem ga_unit : unit_of R ga_table gdim gunit.
Proof.
  intros x k Hk; rewrite !tmul_ga. cases k; rewrite !E.
  - rewrite gunit_vertex by assumption; split; ring.
  - rewrite (gunit_arrow k), (gunit_vertex s), (gunit_vertex t) by (assumption || lia); split; ring.
  - lia.
Qed.

(* J is a two-sided ideal, and J^2 = 0. *)
Theorem J_ideal : ideal R ga_table gdim inJ.
Proof.
  constructor.
  - intros x y Hxy Hx v Hv. rewrite <- Hxy by (unfold gdim; lia). apply Hx; exact Hv.
  - intros v _; reflexivity.
  - intros x y Hx Hy v Hv; unfold vadd; rewrite Hx, Hy by exact Hv; ring.
  - intros c x Hx v Hv; unfold vscale; rewrite Hx by exact Hv; ring.
  - intros y x Hx v Hv; rewrite tmul_ga, gmul_vertex, Hx by exact Hv; ring.
  - intros x y Hx v Hv; rewrite tmul_ga, gmul_vertex, Hx by exact Hv; ring.
Qed.

Theorem J_square_zero x y : inJ x -> inJ y -> forall k, tmul R ga_table x y k = 0.
Proof.
  intros Hx Hy k; rewrite tmul_ga. cases k; rewrite E.
  - rewrite Hx by exact Hk; ring.
  - rewrite (Hx s), (Hy t) by assumption; ring.
  - reflexivity.
Qed.

(* The quotient A/J: spanned by the images of the e_v, which are orthogonal idempotents, sum to
   the unit, are linearly independent modulo J, and commute with everything modulo J. So
   A/J = R^{nv} as algebras. *)
Theorem idempotents_orthogonal v w k : (v < nv)%N -> (w < nv)%N ->
  tmul R ga_table (delta v) (delta w) k = if N.eq_dec v w then delta v k else 0.
Proof.
  intros Hv Hw; rewrite tmul_ga. unfold delta.
  cases k; rewrite E; cbv beta;
    repeat match goal with |- context [N.eq_dec ?a ?b] => destruct (N.eq_dec a b) end;
    subst; try congruence; try (unfold gdim, ne in *; lia); ring.
Qed.

Theorem idempotents_sum k : gunit k = sum R (basis nv) (fun v => delta v k).
Proof.
  unfold delta, gunit. rewrite (sum_ext R _ _ (fun v => if N.eq_dec v k then 1 else 0)).
  2: { intros v; destruct (N.eq_dec k v), (N.eq_dec v k); congruence. }
  destruct (N.ltb_spec k nv) as [Hk|Hk].
  - symmetry; apply (sum_delta R N.eq_dec); [apply basis_nodup|apply in_basis; exact Hk].
  - symmetry; apply (sum_delta_out R N.eq_dec); rewrite in_basis; lia.
Qed.

Theorem quotient_spanned x :
  inJ (fun k => x k - sum R (basis nv) (fun v => x v * delta v k)).
Proof.
  intros k Hk. unfold delta.
  rewrite (sum_ext R _ _ (fun v => if N.eq_dec v k then x v else 0)).
  2: { intros v; destruct (N.eq_dec k v), (N.eq_dec v k); subst; try congruence; ring. }
  rewrite (sum_delta R N.eq_dec) by (apply basis_nodup || (apply in_basis; exact Hk)). ring.
Qed.

Theorem quotient_independent c :
  inJ (fun k => sum R (basis nv) (fun v => c v * delta v k)) -> forall v, (v < nv)%N -> c v = 0.
Proof.
  intros H v Hv. specialize (H v Hv); simpl in H. rewrite <- H. unfold delta.
  rewrite (sum_ext R _ _ (fun w => if N.eq_dec w v then c w else 0)).
  2: { intros w; destruct (N.eq_dec v w), (N.eq_dec w v); subst; try congruence; ring. }
  rewrite (sum_delta R N.eq_dec) by (apply basis_nodup || (apply in_basis; exact Hv)). reflexivity.
Qed.

Theorem quotient_commutative x y :
  inJ (fun k => tmul R ga_table x y k - tmul R ga_table y x k).
Proof. intros v Hv; rewrite !tmul_ga, !gmul_vertex by exact Hv; ring. Qed.

(* The canonical algorithm has |V| + 2|E| multiplications and computes the product. *)
Lemma arrow_entries_length b l : length (arrow_entries b l) = (2 * length l)%nat.
Proof. revert b; induction l as [|[s t] l IH]; intros b; simpl; [reflexivity|]. rewrite IH; lia. Qed.

Theorem ga_length : length ga_table = (N.to_nat nv + 2 * length arrows)%nat.
Proof. unfold ga_table; rewrite app_length, map_length, basis_length, arrow_entries_length; reflexivity. Qed.

Theorem ga_canonical :
  computes R ga_table gdim (canonical R ga_table) /\
  length (canonical R ga_table) = (N.to_nat nv + 2 * length arrows)%nat.
Proof. split; [apply canonical_computes, ga_wf|rewrite canonical_length; apply ga_length]. Qed.

End GraphAlgebra.
