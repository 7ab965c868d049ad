// Package plot draws the diagnostic pictures of a fit or a prediction: the
// empirical semivariogram against the fitted model, maps of values at the
// data locations and heat maps of values on a regular grid.
//
// Every drawing function takes a base path (the path without extension)
// and writes two files, base.svg (vector) and base.png (raster, 300 dots
// per inch unless the options say otherwise), using gonum.org/v1/plot. Both files are rendered in memory
// first and then written atomically: each goes to a temporary file in the
// destination directory that is renamed over base.svg or base.png only
// once both are complete, so an error leaves neither a partial file nor a
// temporary one behind. A base ending in ".svg" or ".png" has that
// extension removed first.
//
// Colours follow a perceptual, colour-blind-friendly sequential map close
// to matplotlib's viridis (dark purple for low values, yellow for high
// ones); values that are NaN are drawn in grey (Map) or left blank (Grid).
// Signed values centred on 0 (standardised residuals) may take a diverging
// map instead (MapOptions.Diverging): blue below 0, white at 0, red above.
//
// The package has no mutable package-level state: its functions may be
// called concurrently for different files.
package plot
