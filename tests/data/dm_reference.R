# Reference values for tests/inference/test_diebold_mariano.py, computed with the R package forecast
# 8.20 (Hyndman & Khandakar 2008) on R 4.2.2 (Debian bookworm packages r-base-core, r-cran-forecast):
#   cd tests/data && Rscript dm_reference.R
# dm_forecasts.csv holds a truth y and two models' forecasts a and b drawn with NumPy (MA(2)
# forecast errors; test_diebold_mariano.py says how). dm.test takes the forecast errors y - forecast.
suppressMessages(library(forecast))
d <- read.csv("dm_forecasts.csv")
for (h in c(1, 2, 5)) for (p in c(1, 2)) {
  t <- dm.test(d$y - d$a, d$y - d$b, alternative = "two.sided", h = h, power = p)
  cat(sprintf("h=%d power=%d statistic=%.17g p=%.17g\n", h, p, t$statistic, t$p.value))
}
