(* Instance certificates: boolean checkers over concrete integer tables, each proved sound once
   here, so that a generated file proves its table's properties by computation (vm_compute).

   Instance data are written over Z with binary indices and mapped into any commutative ring R
   by the canonical morphism Z -> R ([zmap]); a checked property therefore holds over every
   commutative ring (over every field, for the rank statement).

   Every identity is checked as "a formal sum of monomials is zero": the checker collects the
   monomials (key, integer coefficient) of both sides and verifies that, for each distinct key,
   the coefficients add up to zero.  Monomials are bucketed by output coordinate first, so the
   work is O(m * dim + sum over outputs of m_k^2) for m monomials, m = O(nnz * entries per row)
   for associativity: no dense dim^3 loops, no unary numbers. *)
From Coq Require Import List Ring NArith ZArith Lia Bool InitialRing.
From Qalg Require Import Ring Sums Tensor GraphAlgebra AlderStrassen GraphRank.
Import ListNotations.
Local Open Scope bool_scope.

Definition ztable : Type := list (N * N * N * Z).
Definition zvec : Type := list (N * Z).                 (* sparse vector: (index, coefficient) *)
Definition ztriple : Type := (zvec * zvec * zvec)%type.  (* (alpha, beta, gamma) of an algorithm *)
Definition key : Type := list N.
Definition monomial : Type := (key * Z)%type.

Definition key_dec : forall a b : key, {a = b} + {a <> b} := list_eq_dec N.eq_dec.

Definition keysum (ms : list monomial) (k : key) : Z :=
  fold_right (fun m acc => if key_dec (fst m) k then (snd m + acc)%Z else acc) 0%Z ms.

(* For every key that occurs, the coefficients sum to zero. *)
Definition zero_check (ms : list monomial) : bool :=
  forallb (fun k => Z.eqb (keysum ms k) 0) (nodup key_dec (map fst ms)).

(* The same, bucket by bucket: monomials are grouped by the last index of their key (the output
   coordinate), so the quadratic part only compares monomials of one output coordinate. *)
Definition key_out (k : key) : N := last k 0%N.
Definition bucket (b : N) (ms : list monomial) : list monomial :=
  filter (fun m => N.eqb (key_out (fst m)) b) ms.
Definition fast_zero_check (ms : list monomial) : bool :=
  forallb (fun b => zero_check (bucket b ms)) (nodup N.eq_dec (map (fun m => key_out (fst m)) ms)).

Definition neg (ms : list monomial) : list monomial := map (fun m => (fst m, Z.opp (snd m))) ms.

Definition inb (k : N) (S : list N) : bool := existsb (N.eqb k) S.

Definition wf_check (n : N) (T : ztable) : bool :=
  forallb (fun e => N.ltb (ei e) n && N.ltb (ej e) n && N.ltb (ek e) n) T.

Definition assoc_left (T : ztable) : list monomial :=
  flat_map (fun e2 => flat_map (fun e1 =>
    if N.eqb (ek e1) (ei e2) then [([ei e1; ej e1; ej e2; ek e2], (ec e1 * ec e2)%Z)] else [])
    T) T.
Definition assoc_right (T : ztable) : list monomial :=
  flat_map (fun e2 => flat_map (fun e1 =>
    if N.eqb (ek e1) (ej e2) then [([ei e2; ei e1; ej e1; ek e2], (ec e1 * ec e2)%Z)] else [])
    T) T.
Definition assoc_check (T : ztable) : bool := fast_zero_check (assoc_left T ++ neg (assoc_right T)).

Definition unit_left (T : ztable) (U : zvec) : list monomial :=
  flat_map (fun e => flat_map (fun p =>
    if N.eqb (fst p) (ei e) then [([ej e; ek e], (snd p * ec e)%Z)] else []) U) T.
Definition unit_right (T : ztable) (U : zvec) : list monomial :=
  flat_map (fun e => flat_map (fun p =>
    if N.eqb (fst p) (ej e) then [([ei e; ek e], (ec e * snd p)%Z)] else []) U) T.
Definition identity_monos (n : N) : list monomial := map (fun j => ([j; j], 1%Z)) (basis n).
Definition unit_check (n : N) (T : ztable) (U : zvec) : bool :=
  fast_zero_check (unit_left T U ++ neg (identity_monos n)) &&
  fast_zero_check (unit_right T U ++ neg (identity_monos n)).

Definition table_monos (T : ztable) : list monomial := map (fun e => ([ei e; ej e; ek e], ec e)) T.
Definition zvec_ok (n : N) (v : zvec) : bool := forallb (fun p => N.ltb (fst p) n) v.
Definition alg_monos (A : list ztriple) : list monomial :=
  flat_map (fun t => flat_map (fun a => flat_map (fun b => map (fun g =>
    ([fst a; fst b; fst g], (snd a * snd b * snd g)%Z)) (snd t)) (snd (fst t))) (fst (fst t))) A.
Definition alg_check (n : N) (T : ztable) (A : list ztriple) : bool :=
  forallb (fun t => zvec_ok n (fst (fst t)) && zvec_ok n (snd (fst t))) A &&
  fast_zero_check (alg_monos A ++ neg (table_monos T)).

Definition ideal_check (T : ztable) (S : list N) : bool :=
  forallb (fun e => implb (inb (ei e) S || inb (ej e) S) (inb (ek e) S)) T.
Definition square_zero_check (T : ztable) (S : list N) : bool :=
  forallb (fun e => negb (inb (ei e) S && inb (ej e) S)) T.

Definition valid_check (nv : N) (arrows : list (N * N)) : bool :=
  forallb (fun p => N.ltb (fst p) nv && N.ltb (snd p) nv) arrows.
(* The table is (up to the order of its entries) the graph algebra of the quiver. *)
Definition graph_check (n : N) (T : ztable) (nv : N) (arrows : list (N * N)) : bool :=
  valid_check nv arrows && N.eqb n (gdim nv arrows) &&
  Nat.eqb (length T) (N.to_nat nv + 2 * length arrows) &&
  fast_zero_check (table_monos T ++ neg (table_monos (ga_table Zring nv arrows))).

Section Soundness.
Variable R : cring.
Add Ring Rr : (cring_th R).
Local Notation "0" := (zero R).
Local Notation "1" := (one R).
Local Infix "+" := (add R).
Local Infix "*" := (mul R).

Definition zmap : Z -> R := gen_phiZ (zero R) (one R) (add R) (mul R) (opp R).
Definition zmap_table (T : ztable) : table R := map (fun e => (ei e, ej e, ek e, zmap (ec e))) T.
Definition zv (v : zvec) : vec R := fun i => sum R v (fun p => if N.eq_dec (fst p) i then zmap (snd p) else 0).
Definition zalg (A : list ztriple) : list (triple R) :=
  map (fun t => (zv (fst (fst t)), zv (snd (fst t)), zv (snd t))) A.
Definition spanned (n : N) (S : list N) (x : vec R) : Prop :=
  forall k, (k < n)%N -> inb k S = false -> x k = 0.

Lemma zmap_one : zmap 1%Z = 1.
Proof. reflexivity. Qed.
Lemma zmap_add a b : zmap (a + b)%Z = zmap a + zmap b.
Proof. apply (gen_phiZ_add (Eqsth _) (Eq_ext _ _ _) (cring_th R)). Qed.
Lemma zmap_mul a b : zmap (a * b)%Z = zmap a * zmap b.
Proof. apply (gen_phiZ_mul (Eqsth _) (Eq_ext _ _ _) (cring_th R)). Qed.
Lemma zmap_opp a : zmap (- a)%Z = opp R (zmap a).
Proof.
  assert (H : zmap (- a)%Z + zmap a = 0) by (rewrite <- zmap_add, Z.add_opp_diag_l; reflexivity).
  transitivity (zmap (- a)%Z + zmap a + opp R (zmap a)); [ring|rewrite H; ring].
Qed.

Definition eval (f : key -> R) (ms : list monomial) : R := sum R ms (fun m => zmap (snd m) * f (fst m)).

Lemma eval_app f l1 l2 : eval f (l1 ++ l2) = eval f l1 + eval f l2.
Proof. apply sum_app. Qed.
Lemma eval_neg f l : eval f (neg l) = opp R (eval f l).
Proof.
  unfold eval, neg; rewrite sum_map, <- sum_opp. apply sum_ext; intros m; cbn [fst snd].
  rewrite zmap_opp; ring.
Qed.
Lemma eval_if f (b : bool) (k : key) (c : Z) :
  eval f (if b then [(k, c)] else []) = if b then zmap c * f k else 0.
Proof. destruct b; unfold eval; rewrite ?sum_cons, ?sum_nil; simpl; ring. Qed.

Lemma sub_zero a b : a + opp R b = 0 -> a = b.
Proof. intros H; transitivity (a + opp R b + b); [ring|rewrite H; ring]. Qed.

Theorem zero_check_sound ms : zero_check ms = true -> forall f, eval f ms = 0.
Proof.
  intros Hc f. set (K := nodup key_dec (map fst ms)).
  assert (HK : forall m, In m ms -> In (fst m) K)
    by (intros m Hm; apply nodup_In, in_map; exact Hm).
  unfold eval.
  rewrite (sum_ext_in R ms _ (fun m => sum R K (fun k => zmap (snd m) * (if key_dec k (fst m) then f k else 0)))).
  2: { intros m Hm; rewrite <- sum_scale_l, (sum_delta R key_dec);
       [reflexivity|apply NoDup_nodup|apply HK; exact Hm]. }
  rewrite sum_swap. apply sum_zero; intros k Hk.
  assert (E : forall l, sum R l (fun m => zmap (snd m) * (if key_dec k (fst m) then f k else 0))
                        = f k * zmap (keysum l k)).
  { induction l as [|m l IH]; rewrite ?sum_nil, ?sum_cons; [simpl; ring|].
    rewrite IH; simpl. destruct (key_dec k (fst m)), (key_dec (fst m) k); try congruence;
      rewrite ?zmap_add; ring. }
  rewrite E. unfold zero_check in Hc; rewrite forallb_forall in Hc.
  specialize (Hc k Hk). apply Z.eqb_eq in Hc. rewrite Hc; simpl; ring.
Qed.

Lemma sum_filter {A} (p : A -> bool) l (g : A -> R) :
  sum R (filter p l) g = sum R l (fun a => if p a then g a else 0).
Proof.
  induction l as [|a l IH]; simpl filter; [rewrite !sum_nil; reflexivity|].
  rewrite sum_cons; destruct (p a); rewrite ?sum_cons, IH; ring.
Qed.

Theorem fast_zero_check_sound ms : fast_zero_check ms = true -> forall f, eval f ms = 0.
Proof.
  intros Hc f. set (H := nodup N.eq_dec (map (fun m => key_out (fst m)) ms)).
  unfold eval.
  rewrite (sum_ext_in R ms _ (fun m => sum R H (fun b =>
             if N.eq_dec b (key_out (fst m)) then zmap (snd m) * f (fst m) else 0))).
  2: { intros m Hm; symmetry;
       apply (sum_delta R N.eq_dec H (key_out (fst m)) (fun _ => zmap (snd m) * f (fst m)));
         [apply NoDup_nodup|].
       apply nodup_In, in_map_iff; exists m; auto. }
  rewrite sum_swap. apply sum_zero; intros b Hb.
  unfold fast_zero_check in Hc; rewrite forallb_forall in Hc.
  transitivity (eval f (bucket b ms)).
  - unfold eval, bucket; rewrite sum_filter; apply sum_ext; intros m.
    destruct (N.eq_dec b (key_out (fst m))), (N.eqb_spec (key_out (fst m)) b); congruence || reflexivity.
  - apply zero_check_sound, Hc, Hb.
Qed.

Lemma zero_check_diff l1 l2 f : fast_zero_check (l1 ++ neg l2) = true -> eval f l1 = eval f l2.
Proof.
  intros H; apply sub_zero. rewrite <- eval_neg, <- eval_app. apply fast_zero_check_sound; exact H.
Qed.

Theorem wf_check_sound n T : wf_check n T = true -> wf R (zmap_table T) n.
Proof.
  intros H e He. unfold zmap_table in He; apply in_map_iff in He; destruct He as [e' [<- He']].
  unfold wf_check in H; rewrite forallb_forall in H; specialize (H e' He').
  rewrite !andb_true_iff, !N.ltb_lt in H. unfold ei, ej, ek in *; simpl; tauto.
Qed.

Lemma tmul_z T x y k :
  tmul R (zmap_table T) x y k =
  sum R T (fun e => if N.eq_dec (ek e) k then zmap (ec e) * x (ei e) * y (ej e) else 0).
Proof. unfold tmul, zmap_table; rewrite sum_map; apply sum_ext; intros e; reflexivity. Qed.

(* The table product, evaluated through its monomials. *)
Lemma tmul_monos T x y k :
  tmul R (zmap_table T) x y k =
  eval (fun key => match key with [i; j; k'] => x i * y j * (if N.eq_dec k' k then 1 else 0)
                   | _ => 0 end) (table_monos T).
Proof.
  rewrite tmul_z; unfold table_monos, eval; rewrite sum_map. apply sum_ext; intros e.
  cbn [fst snd]; lazy beta iota. destruct (N.eq_dec (ek e) k); ring.
Qed.

(* One step of the associativity expansion: the product (b_i b_j) b_l, resp. b_i (b_j b_l),
   written as a sum over pairs of entries. *)
Ltac single_if := lazy beta iota; rewrite ?sum_cons, ?sum_nil; cbn [fst snd]; lazy beta iota.

Theorem assoc_check_sound n T : assoc_check T = true -> associative R (zmap_table T) n.
Proof.
  intros H x y z k _.
  set (f := fun key : key => match key with
            | [i; j; l; k'] => x i * y j * z l * (if N.eq_dec k' k then 1 else 0) | _ => 0 end).
  assert (L : tmul R (zmap_table T) (tmul R (zmap_table T) x y) z k = eval f (assoc_left T)).
  { rewrite tmul_z; unfold assoc_left, eval; rewrite sum_flat_map. apply sum_ext; intros e2.
    rewrite tmul_z, sum_flat_map. destruct (N.eq_dec (ek e2) k) as [He|He].
    - rewrite sum_scale_l, sum_scale_r. apply sum_ext; intros e1.
      destruct (N.eqb_spec (ek e1) (ei e2)), (N.eq_dec (ek e1) (ei e2)); try congruence;
        single_if; [|ring].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e2) k); [|congruence].
      rewrite zmap_mul; ring.
    - symmetry; apply sum_zero; intros e1 _.
      destruct (N.eqb (ek e1) (ei e2)); single_if; [|reflexivity].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e2) k); [congruence|ring]. }
  assert (Rt : tmul R (zmap_table T) x (tmul R (zmap_table T) y z) k = eval f (assoc_right T)).
  { rewrite tmul_z; unfold assoc_right, eval; rewrite sum_flat_map. apply sum_ext; intros e2.
    rewrite tmul_z, sum_flat_map. destruct (N.eq_dec (ek e2) k) as [He|He].
    - rewrite sum_scale_l. apply sum_ext; intros e1.
      destruct (N.eqb_spec (ek e1) (ej e2)), (N.eq_dec (ek e1) (ej e2)); try congruence;
        single_if; [|ring].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e2) k); [|congruence].
      rewrite zmap_mul; ring.
    - symmetry; apply sum_zero; intros e1 _.
      destruct (N.eqb (ek e1) (ej e2)); single_if; [|reflexivity].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e2) k); [congruence|ring]. }
  rewrite L, Rt. apply zero_check_diff; exact H.
Qed.

Lemma zv_sum v i : zv v i = sum R v (fun p => if N.eq_dec (fst p) i then zmap (snd p) else 0).
Proof. reflexivity. Qed.

Lemma identity_eval n x k : (k < n)%N ->
  eval (fun key => match key with [j; k'] => x j * (if N.eq_dec k' k then 1 else 0) | _ => 0 end)
       (identity_monos n) = x k.
Proof.
  intros Hk; unfold identity_monos, eval; rewrite sum_map. lazy beta iota.
  rewrite (sum_ext R _ _ (fun j => if N.eq_dec j k then x j else 0)).
  - apply (sum_delta R N.eq_dec); [apply basis_nodup|apply in_basis; exact Hk].
  - intros j; cbn [fst snd]; rewrite zmap_one; destruct (N.eq_dec j k); ring.
Qed.

Theorem unit_check_sound n T U : unit_check n T U = true -> unit_of R (zmap_table T) n (zv U).
Proof.
  intros H x k Hk. unfold unit_check in H; apply andb_true_iff in H; destruct H as [HL HR].
  set (f := fun key : key => match key with
            | [j; k'] => x j * (if N.eq_dec k' k then 1 else 0) | _ => 0 end).
  split.
  - rewrite <- (identity_eval n x k Hk). fold f. rewrite <- (zero_check_diff _ _ f HL).
    rewrite tmul_z; unfold unit_left, eval; rewrite sum_flat_map. apply sum_ext; intros e.
    rewrite sum_flat_map, zv_sum. destruct (N.eq_dec (ek e) k) as [He|He].
    + rewrite sum_scale_l, sum_scale_r. apply sum_ext; intros p.
      destruct (N.eqb_spec (fst p) (ei e)), (N.eq_dec (fst p) (ei e)); try congruence;
        single_if; [|ring].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e) k); [|congruence].
      rewrite zmap_mul; ring.
    + symmetry; apply sum_zero; intros p _.
      destruct (N.eqb (fst p) (ei e)); single_if; [|reflexivity].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e) k); [congruence|ring].
  - rewrite <- (identity_eval n x k Hk). fold f. rewrite <- (zero_check_diff _ _ f HR).
    rewrite tmul_z; unfold unit_right, eval; rewrite sum_flat_map. apply sum_ext; intros e.
    rewrite sum_flat_map, zv_sum. destruct (N.eq_dec (ek e) k) as [He|He].
    + rewrite sum_scale_l. apply sum_ext; intros p.
      destruct (N.eqb_spec (fst p) (ej e)), (N.eq_dec (fst p) (ej e)); try congruence;
        single_if; [|ring].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e) k); [|congruence].
      rewrite zmap_mul; ring.
    + symmetry; apply sum_zero; intros p _.
      destruct (N.eqb (fst p) (ej e)); single_if; [|reflexivity].
      unfold f; lazy beta iota. destruct (N.eq_dec (ek e) k); [congruence|ring].
Qed.

Lemma dot_zv n v x : zvec_ok n v = true ->
  dot R n (zv v) x = sum R v (fun p => zmap (snd p) * x (fst p)).
Proof.
  intros Hv; unfold dot, zv. rewrite (sum_ext R _ _ (fun k => sum R v (fun p =>
    if N.eq_dec (fst p) k then zmap (snd p) * x k else 0))).
  2: { intros k; rewrite sum_scale_r; apply sum_ext; intros p; destruct (N.eq_dec (fst p) k); ring. }
  rewrite sum_swap. apply sum_ext_in; intros p Hp.
  rewrite (sum_ext R _ _ (fun k => if N.eq_dec k (fst p) then zmap (snd p) * x k else 0)).
  2: { intros k; destruct (N.eq_dec (fst p) k), (N.eq_dec k (fst p)); congruence. }
  rewrite (sum_delta R N.eq_dec); [reflexivity|apply basis_nodup|].
  unfold zvec_ok in Hv; rewrite forallb_forall in Hv. apply in_basis, N.ltb_lt, Hv, Hp.
Qed.

Theorem alg_check_sound n T A : alg_check n T A = true -> computes R (zmap_table T) n (zalg A).
Proof.
  intros H x y k Hk. unfold alg_check in H; apply andb_true_iff in H; destruct H as [Hok H].
  rewrite forallb_forall in Hok.
  rewrite tmul_monos, <- (zero_check_diff _ _ _ H).
  unfold alg_eval, zalg, alg_monos, eval; rewrite sum_map, sum_flat_map. apply sum_ext_in; intros t Ht.
  destruct (proj1 (andb_true_iff _ _) (Hok t Ht)) as [Ha Hb]. cbn [fst snd].
  rewrite dot_zv, dot_zv, zv_sum, sum_prod3 by assumption.
  rewrite sum_flat_map; apply sum_ext; intros a. rewrite sum_flat_map; apply sum_ext; intros b.
  rewrite sum_map; apply sum_ext; intros g. lazy beta iota.
  cbn [fst snd]; lazy beta iota. destruct (N.eq_dec (fst g) k); rewrite ?zmap_mul; ring.
Qed.

Theorem ideal_check_sound n T S : wf_check n T = true -> ideal_check T S = true ->
  ideal R (zmap_table T) n (spanned n S).
Proof.
  intros Hwf H. assert (Hw := wf_check_sound n T Hwf).
  unfold ideal_check in H; rewrite forallb_forall in H.
  assert (Hl : forall e, In e T -> inb (ek e) S = false -> inb (ej e) S = false /\ inb (ei e) S = false).
  { intros e He Hk. specialize (H e He). rewrite Hk in H.
    destruct (inb (ei e) S), (inb (ej e) S); simpl in H; try discriminate; auto. }
  assert (Hn : forall e, In e T -> (ei e < n /\ ej e < n /\ ek e < n)%N).
  { intros e He; exact (Hw _ (in_map (fun e => (ei e, ej e, ek e, zmap (ec e))) T e He)). }
  constructor; unfold spanned.
  - intros x y Hxy Hx k Hk HS; rewrite <- Hxy by exact Hk; apply Hx; assumption.
  - intros k _ _; reflexivity.
  - intros x y Hx Hy k Hk HS; unfold vadd; rewrite Hx, Hy by assumption; ring.
  - intros c x Hx k Hk HS; unfold vscale; rewrite Hx by assumption; ring.
  - intros y x Hx k Hk HS; rewrite tmul_z; apply sum_zero; intros e He.
    destruct (N.eq_dec (ek e) k) as [<-|]; [|reflexivity].
    destruct (Hl e He HS). destruct (Hn e He) as (? & ? & ?). rewrite (Hx (ej e)) by assumption; ring.
  - intros x y Hx k Hk HS; rewrite tmul_z; apply sum_zero; intros e He.
    destruct (N.eq_dec (ek e) k) as [<-|]; [|reflexivity].
    destruct (Hl e He HS). destruct (Hn e He) as (? & ? & ?). rewrite (Hx (ei e)) by assumption; ring.
Qed.

Theorem square_zero_check_sound n T S : wf_check n T = true -> square_zero_check T S = true ->
  forall x y, spanned n S x -> spanned n S y -> forall k, tmul R (zmap_table T) x y k = 0.
Proof.
  intros Hwf H x y Hx Hy k. assert (Hw := wf_check_sound n T Hwf).
  unfold square_zero_check in H; rewrite forallb_forall in H.
  rewrite tmul_z; apply sum_zero; intros e He.
  destruct (N.eq_dec (ek e) k); [|reflexivity].
  destruct (Hw _ (in_map (fun e => (ei e, ej e, ek e, zmap (ec e))) T e He)) as (Hi & Hj & _).
  specialize (H e He). destruct (inb (ei e) S) eqn:Ei.
  - destruct (inb (ej e) S) eqn:Ej; [discriminate|]. rewrite (Hy (ej e)) by assumption; ring.
  - rewrite (Hx (ei e)) by assumption; ring.
Qed.

Lemma zmap_ga nv arrows : zmap_table (ga_table Zring nv arrows) = ga_table R nv arrows.
Proof.
  unfold ga_table, zmap_table. rewrite map_app, map_map. f_equal.
  generalize nv as b; induction arrows as [|[s t] l IH]; intros b; [reflexivity|].
  change (arrow_entries Zring b ((s, t) :: l))
    with ((s, b, b, 1%Z) :: (b, t, b, 1%Z) :: arrow_entries Zring (N.succ b) l).
  change (arrow_entries R b ((s, t) :: l))
    with ((s, b, b, one R) :: (b, t, b, one R) :: arrow_entries R (N.succ b) l).
  rewrite !map_cons, IH. reflexivity.
Qed.

Theorem graph_check_same n T nv arrows : graph_check n T nv arrows = true ->
  forall x y k, tmul R (zmap_table T) x y k = tmul R (ga_table R nv arrows) x y k.
Proof.
  intros H x y k. unfold graph_check in H; rewrite !andb_true_iff in H.
  destruct H as [[[_ _] _] H].
  rewrite <- zmap_ga, !tmul_monos. apply zero_check_diff; exact H.
Qed.

End Soundness.

Lemma valid_check_sound nv arrows : valid_check nv arrows = true -> valid_quiver nv arrows.
Proof.
  intros H s t Hin. unfold valid_check in H; rewrite forallb_forall in H.
  specialize (H _ Hin); rewrite andb_true_iff, !N.ltb_lt in H; exact H.
Qed.

(* The instance is the graph algebra of the quiver (nv, arrows), so over every field its rank is
   |V| + 2|E|: its canonical algorithm computes it with that many products, and no bilinear
   algorithm uses fewer. *)
Theorem instance_graph_rank n T nv arrows :
  wf_check n T = true -> graph_check n T nv arrows = true ->
  forall F : cfield,
    (computes F (zmap_table F T) n (canonical F (zmap_table F T)) /\
     length (canonical F (zmap_table F T)) = (N.to_nat nv + 2 * length arrows)%nat) /\
    forall A, computes F (zmap_table F T) n A -> (N.to_nat nv + 2 * length arrows <= length A)%nat.
Proof.
  intros Hwf Hg F. assert (Hsame := graph_check_same F n T nv arrows Hg).
  unfold graph_check in Hg; rewrite !andb_true_iff in Hg.
  destruct Hg as [[[Hv Hn] Hlen] _]. apply N.eqb_eq in Hn; apply Nat.eqb_eq in Hlen.
  apply valid_check_sound in Hv. split.
  - split; [apply canonical_computes, wf_check_sound; exact Hwf|].
    rewrite canonical_length; unfold zmap_table; rewrite map_length; exact Hlen.
  - intros A HA. apply (proj2 (graph_algebra_rank F nv arrows Hv)).
    subst n. apply (computes_ext F (zmap_table F T)); [|exact HA].
    intros x y k _; apply Hsame.
Qed.

