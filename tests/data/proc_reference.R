# Reference values for tests/inference/test_delong_proc.py, computed with the R package pROC 1.18.0
# (Robin et al. 2011) on R 4.2.2 (Debian bookworm packages r-base-core, r-cran-proc):
#   cd tests/data && Rscript proc_reference.R
# asah.csv is pROC's aSAH data (Turck et al. 2010), exported with
#   d <- data.frame(outcome = as.integer(aSAH$outcome == "Poor"),
#                   wfns = as.integer(as.character(aSAH$wfns)), s100b = aSAH$s100b, ndka = aSAH$ndka)
#   write.csv(d, "asah.csv", row.names = FALSE)
# The delong_*.csv files were drawn with NumPy (tests/inference/test_delong_proc.py says how).
suppressMessages(library(pROC))
out <- function(file, y, a, b) {
  ra <- roc(y, a, levels=c(0,1), direction="<", quiet=TRUE)
  rb <- roc(y, b, levels=c(0,1), direction="<", quiet=TRUE)
  ca <- ci.auc(ra, method="delong"); cb <- ci.auc(rb, method="delong")
  t <- roc.test(ra, rb, method="delong", paired=TRUE)
  cat(sprintf("%s: auc_a=%.17g var_a=%.17g ci_a=(%.17g, %.17g) auc_b=%.17g var_b=%.17g ci_b=(%.17g, %.17g) z=%.17g p=%.17g\n",
      file, as.numeric(auc(ra)), var(ra), ca[1], ca[3], as.numeric(auc(rb)), var(rb), cb[1], cb[3], t$statistic, t$p.value))
}
d <- read.csv("asah.csv"); out("asah s100b-wfns", d$outcome, d$s100b, d$wfns); out("asah ndka-s100b", d$outcome, d$ndka, d$s100b)
for (f in c("ties", "continuous", "small")) { d <- read.csv(paste0("delong_", f, ".csv")); out(f, d$y, d$a, d$b) }
