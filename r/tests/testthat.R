library(testthat)
library(exageostat)
test_check("exageostat")
