# Reference values for tests/inference/test_planning.py, computed with the R package pROC 1.18.0
# (Robin et al. 2011) on R 4.2.2 (Debian bookworm packages r-base-core, r-cran-proc):
#   cd tests/data && Rscript power_reference.R
# The data: asah.csv (pROC's aSAH, as proc_reference.R says), delong_ties.csv (drawn for
# proc_reference.R) and partial_auc_ties.csv (drawn for partial_auc_reference.R).
#
# Two paired ROC curves with DeLong's variances (pROC's power.roc.test.roc: v0 = 2 var1 -
# 2 cov12 under the null, va = var1 + var2 - 2 cov12 under the alternative, each times ncases,
# ncases = (z_alpha sqrt(v0) + z_beta sqrt(va))^2 / delta^2, ncontrols = kappa ncases):
#   power.roc.test(r1, r2, power = p, sig.level = a, alternative = alt)$ncases
#   power.roc.test(r1, r2, sig.level = a, alternative = alt)$power   (the power at the cases now)
# with r = roc(y, s, levels = c(0, 1), direction = "<"). One ROC curve (Obuchowski's variance,
# pROC's power.roc.test.numeric with var.theta.obuchowski):
#   power.roc.test(auc = A, kappa = k, power = p, sig.level = a, alternative = alt)
suppressMessages(library(pROC))
two <- function(file, y, s1, s2, p, a, alt) {
  r1 <- roc(y, s1, levels = c(0, 1), direction = "<", quiet = TRUE)
  r2 <- roc(y, s2, levels = c(0, 1), direction = "<", quiet = TRUE)
  n <- power.roc.test(r1, r2, power = p, sig.level = a, alternative = alt)
  w <- power.roc.test(r1, r2, sig.level = a, alternative = alt)
  cat(sprintf("%s power=%g sig.level=%g %s: ncases=%.17g ncontrols=%.17g power_now=%.17g\n",
      file, p, a, alt, n$ncases, n$ncontrols, w$power))
}
d <- read.csv("asah.csv")
for (pair in list(c("s100b", "wfns"), c("wfns", "s100b"), c("ndka", "s100b"))) {
  for (set in list(list(0.8, 0.05, "two.sided"), list(0.9, 0.01, "two.sided"),
                   list(0.8, 0.05, "one.sided"))) {
    two(paste("asah.csv", pair[1], pair[2]), d$outcome, d[[pair[1]]], d[[pair[2]]],
        set[[1]], set[[2]], set[[3]])
  }
}
for (f in c("delong_ties.csv", "partial_auc_ties.csv")) {
  d <- read.csv(f)
  two(paste(f, "a b"), d$y, d$a, d$b, 0.8, 0.05, "two.sided")
}
for (set in list(list(0.8, 1, 0.8, 0.05, "two.sided"), list(0.7, 2, 0.9, 0.05, "two.sided"),
                 list(0.95, 0.5, 0.8, 0.01, "two.sided"), list(0.6, 3, 0.8, 0.05, "one.sided"),
                 list(0.75, 1, 0.95, 0.1, "two.sided"))) {
  o <- power.roc.test(auc = set[[1]], kappa = set[[2]], power = set[[3]], sig.level = set[[4]],
                      alternative = set[[5]])
  cat(sprintf("auc=%g kappa=%g power=%g sig.level=%g %s: ncases=%.17g ncontrols=%.17g\n",
      set[[1]], set[[2]], set[[3]], set[[4]], set[[5]], o$ncases, o$ncontrols))
}
