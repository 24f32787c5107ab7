# Reference values for tests/measures/test_partial_auc.py, computed with the R package pROC 1.18.0
# (Robin et al. 2011) on R 4.2.2 (Debian bookworm packages r-base-core, r-cran-proc):
#   cd tests/data && Rscript partial_auc_reference.R
# The data: asah.csv (pROC's aSAH, as proc_reference.R says), delong_ties.csv (drawn for
# proc_reference.R) and partial_auc_ties.csv, drawn with NumPy (tests/measures/test_partial_auc.py
# says how): ties within and across the classes, a score with six values.
#
# The standardised partial AUC over false positive rates [0, f] is
#   auc(roc(y, s, levels = c(0, 1), direction = "<"), partial.auc = c(1, 1 - f),
#       partial.auc.focus = "specificity", partial.auc.correct = TRUE)
# (McClish 1989). pROC has no DeLong variance for it: the script prints what
#   var(roc_partial, method = "delong") and roc.test(r1, r2, method = "delong")
# say (both refuse: "DeLong method is not supported for partial AUC. Use method="bootstrap"
# instead." and "DeLong's test is not supported for partial AUC. Use method="bootstrap"
# instead."), and that power.roc.test refuses corrected partial AUCs.
suppressMessages(library(pROC))
fprs <- c(0.05, 0.1, 0.2, 0.5)
out <- function(file, y, s, name) {
  r <- roc(y, s, levels = c(0, 1), direction = "<", quiet = TRUE)
  v <- sapply(fprs, function(f) as.numeric(auc(r, partial.auc = c(1, 1 - f),
    partial.auc.focus = "specificity", partial.auc.correct = TRUE)))
  cat(sprintf("%s %s: %s\n", file, name, paste(sprintf("%.17g", v), collapse = " ")))
}
d <- read.csv("asah.csv")
for (s in c("s100b", "wfns", "ndka")) out("asah.csv", d$outcome, d[[s]], s)
for (f in c("delong_ties.csv", "partial_auc_ties.csv")) {
  d <- read.csv(f)
  for (s in c("a", "b")) out(f, d$y, d[[s]], s)
}
d <- read.csv("asah.csv")
partial <- function(s) roc(d$outcome, d[[s]], levels = c(0, 1), direction = "<", quiet = TRUE,
  partial.auc = c(1, 0.8), partial.auc.focus = "specificity", partial.auc.correct = TRUE)
said <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))
cat("var(method = \"delong\"):", said(var(partial("s100b"), method = "delong")), "\n")
cat("roc.test(method = \"delong\"):",
    said(roc.test(partial("s100b"), partial("wfns"), method = "delong")), "\n")
cat("power.roc.test:", said(power.roc.test(partial("s100b"), partial("wfns"))), "\n")
