(* The rank theorems rest on the Alder-Strassen axiom and on nothing else. *)
From Qalg Require Import GraphRank Certify.
Print Assumptions graph_algebra_rank.
Print Assumptions instance_graph_rank.
