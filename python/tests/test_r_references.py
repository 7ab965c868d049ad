"""Fits and predictions through the package against the R references of testdata/r (1e-8)
and against the binary's own outputs for the same command."""

import json
import subprocess

import numpy as np
import pandas as pd
import pytest

import exageostat as eg


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@pytest.fixture(scope="module")
def meuse(root):
    return pd.read_csv(root / "testdata/real/meuse.csv", float_precision="round_trip")


def test_meuse_loglik_and_gls_at_r_theta(root, binary, meuse):
    """l (ML and REML) and the GLS coefficients of z ~ dist + elev at R's 4 theta."""
    ref = pd.read_csv(root / "testdata/r/loglik_mean.csv", float_precision="round_trip")
    ref = ref[(ref.data == "meuse") & (ref["mean"] == "covariates:dist+elev")]
    gls = {g["case"]: g for g in json.loads((root / "testdata/r/gls.json").read_text())
           if g["data"] == "meuse" and g["mean"] == "covariates:dist+elev"}
    assert len(ref) == 4 and len(gls) == 4
    for _, r in ref.iterrows():
        th = [r.sigma2, r.beta, r.nu, r.tau2]
        for reml, want in ((False, r.loglik), (True, r.loglik_reml)):
            m = eg.fit(meuse, mean="dist+elev", bounds=(th, th), reml=reml, progress=False)
            assert rel(m.loglik, want) <= 1e-8 * max(1, abs(want)), (r.case, reml, m.loglik, want)
            assert m.status == "all parameters fixed"
        g = gls[r.case]
        np.testing.assert_allclose(m.coef.to_numpy(), g["beta_hat"], rtol=1e-8)
        np.testing.assert_allclose(m.coef_stderr.to_numpy(), g["se"], rtol=1e-8)
        assert list(m.coef.index) == ["intercept", "dist", "elev"]


MEUSE_BOX = ([1e-3, 1, 0.05, 1e-9], [1e3, 1e4, 8, 100])


def test_meuse_fit_matches_binary_and_r(root, binary, meuse):
    """The ML fit (constant mean, nu and nugget free) is the binary's own run, bit for bit,
    and reaches R's maximum (fits_real.csv) within 1e-4 in l."""
    m = eg.fit(meuse, mean="constant", bounds=MEUSE_BOX, progress=False)
    lb, ub = (",".join(map(repr, map(float, b))) for b in MEUSE_BOX)
    out = root / "python" / ".pytest-direct.json"
    try:
        subprocess.run([binary, "fit", "--data", str(root / "testdata/real/meuse.csv"), "--mean", "constant",
                        "--lb", lb, "--ub", ub, "--json", str(out), "--checkpoint", "none", "-q"],
                       check=True, capture_output=True)
        direct = json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)
    assert m.loglik == direct["loglik"] and m.theta.tolist() == direct["theta"]
    assert m.coef.tolist() == direct["mean_coefficients"]
    fr = pd.read_csv(root / "testdata/r/fits_real.csv", float_precision="round_trip")
    want = fr[(fr.data == "meuse") & (fr.method == "ml") & (fr.nu_fixed == "free")].loglik_max.item()
    assert abs(m.loglik - want) <= 1e-4, (m.loglik, want)
    assert m.parameters == ["sigma2", "beta", "nu", "tau2"]
    assert m.summary().loc["beta", "lb"] == 1


def test_profile_n200_against_r(root, binary):
    """The 200-point data: the fit reaches R's MLE (profile_ci.csv) to 1e-3, l to 1e-6;
    at R's MLE the l is R's to 1e-8."""
    d = pd.read_csv(root / "testdata/r/profile_n200.csv", float_precision="round_trip")
    ref = pd.read_csv(root / "testdata/r/profile_ci.csv", float_precision="round_trip").set_index("param")
    mle = ref.loc[["sigma2", "beta", "nu"], "mle"].to_numpy()
    lmax = ref.loglik_max.iloc[0]
    m = eg.fit(d, progress=False)
    np.testing.assert_allclose(m.theta.to_numpy(), mle, rtol=1e-3)
    assert abs(m.loglik - lmax) <= 1e-6
    at = eg.fit(d, bounds=(mle, mle), progress=False)
    assert rel(at.loglik, lmax) <= 1e-8 * abs(lmax), (at.loglik, lmax)


@pytest.mark.parametrize("mean", ["zero", "constant", "linear"])
def test_kriging_against_r(root, binary, mean):
    """predict (both variances) at 20 new points of the 200 synthetic ones equals base R's kriging."""
    ref = pd.read_csv(root / "testdata/r/kriging_synth.csv", float_precision="round_trip")
    ref = ref[ref["mean"] == mean]
    th = ref[["sigma2", "beta", "nu", "tau2"]].iloc[0].tolist()
    m = eg.fit(pd.read_csv(root / "testdata/r/synth_n200.csv", float_precision="round_trip"), mean=mean, bounds=(th, th), progress=False)
    new = ref[["x", "y"]].reset_index(drop=True)
    for variance, col in (("observation", "var_obs"), ("latent", "var_field")):
        p = m.predict(new, variance=variance, progress=False)
        np.testing.assert_array_equal(p[["x", "y"]].to_numpy(), new.to_numpy())
        np.testing.assert_allclose(p.z_hat.to_numpy(), ref.pred.to_numpy(), rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(p.variance.to_numpy(), ref[col].to_numpy(), rtol=1e-8, atol=1e-8)


def test_cv_is_the_binary_s(root, binary, meuse):
    """cv() returns what exageostat cv writes for the same fit, and its summary."""
    th = [0.6, 300, 0.5, 0.05]
    m = eg.fit(meuse, mean=["dist", "elev"], bounds=(th, th), progress=False)
    c = m.cv(progress=False)
    out = subprocess.run([binary, "cv", "--data", str(root / "testdata/real/meuse.csv"), "--theta-from",
                          m.json_path, "--out", "-", "-q"], check=True, capture_output=True, text=True).stdout
    from io import StringIO

    direct = pd.read_csv(StringIO(out), float_precision="round_trip")
    pd.testing.assert_frame_equal(c.table, direct, check_exact=True)
    assert c.summary["n"] == 155
    assert c.summary["mspe"] == pytest.approx(((direct.z - direct.z_loo) ** 2).mean(), rel=1e-12)
