//go:build gdal

package gdal

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <gdal.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <ogr_api.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"
)

// Available reports whether this binary reads and writes GIS files.
func Available() bool { return true }

// session runs f on one OS thread with GDAL's drivers registered and its
// messages kept off stderr (GDAL's error handler is per thread): the
// errors come back through lastError.
func session(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.GDALAllRegister()
	C.CPLPushErrorHandler(C.CPLErrorHandler(C.CPLQuietErrorHandler))
	defer C.CPLPopErrorHandler()
	C.CPLErrorReset()
	return f()
}

// readIn returns what read makes of the file at path, read in a session;
// an error names the file.
func readIn[T any](path string, read func(string) (T, error)) (T, error) {
	var v T
	err := session(func() error {
		var err error
		v, err = read(path)
		return err
	})
	if err != nil {
		var none T
		return none, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// lastError is GDAL's last message on this thread, or what if none.
func lastError(what string) error {
	if msg := C.GoString(C.CPLGetLastErrorMsg()); msg != "" {
		return errors.New(msg)
	}
	return errors.New(what)
}

// Read reads every band of the raster at path as float64, with its
// geotransform and CRS. A NetCDF file with several variables on one grid
// (its subdatasets) is read as one band per variable, named by it.
func Read(path string) (*Raster, error) {
	return readIn(path, read)
}

func read(path string) (*Raster, error) {
	ds, err := open(path)
	if err != nil {
		return nil, err
	}
	defer C.GDALClose(ds)
	if C.GDALGetRasterCount(ds) == 0 {
		return readSubdatasets(ds)
	}
	r := describe(ds)
	if err := readBands(ds, r, ""); err != nil {
		return nil, err
	}
	return r, r.Check()
}

func open(path string) (C.GDALDatasetH, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	ds := C.GDALOpen(cp, C.GA_ReadOnly)
	if ds == nil {
		return nil, lastError("not a raster GDAL reads")
	}
	return ds, nil
}

// describe returns the size, geotransform and CRS of ds, without bands.
func describe(ds C.GDALDatasetH) *Raster {
	r := &Raster{Width: int(C.GDALGetRasterXSize(ds)), Height: int(C.GDALGetRasterYSize(ds)),
		GeoTransform: [6]float64{0, 1, 0, 0, 0, 1}}
	var gt [6]C.double
	if C.GDALGetGeoTransform(ds, &gt[0]) == C.CE_None {
		for i, v := range gt {
			r.GeoTransform[i] = float64(v)
		}
	}
	r.Projection = C.GoString(C.GDALGetProjectionRef(ds))
	return r
}

// readBands appends the bands of ds to r; a band without a description
// is named name (a NetCDF variable) or "band<k>" when name is "".
func readBands(ds C.GDALDatasetH, r *Raster, name string) error {
	n := int(C.GDALGetRasterCount(ds))
	for k := 1; k <= n; k++ {
		h := C.GDALGetRasterBand(ds, C.int(k))
		b := Band{Name: C.GoString(C.GDALGetDescription(C.GDALMajorObjectH(h)))}
		if b.Name == "" {
			b.Name = name
			if name == "" || n > 1 {
				b.Name = fmt.Sprintf("%sband%d", prefix(name), k)
			}
		}
		var ok C.int
		b.NoData = float64(C.GDALGetRasterNoDataValue(h, &ok))
		b.HasNoData = ok != 0
		b.Values = make([]float64, r.Width*r.Height)
		if C.GDALRasterIO(h, C.GF_Read, 0, 0, C.int(r.Width), C.int(r.Height), unsafe.Pointer(&b.Values[0]),
			C.int(r.Width), C.int(r.Height), C.GDT_Float64, 0, 0) != C.CE_None {
			return lastError(fmt.Sprintf("band %d not read", k))
		}
		r.Bands = append(r.Bands, b)
	}
	return nil
}

func prefix(name string) string {
	if name == "" {
		return ""
	}
	return name + "_"
}

// readSubdatasets reads the subdatasets of a container (a NetCDF file's
// variables) that share the first one's grid, each band named after its
// variable.
func readSubdatasets(ds C.GDALDatasetH) (*Raster, error) {
	dom := C.CString("SUBDATASETS")
	defer C.free(unsafe.Pointer(dom))
	md := C.GDALGetMetadata(C.GDALMajorObjectH(ds), dom)
	var r *Raster
	for k := 1; ; k++ {
		key := C.CString(fmt.Sprintf("SUBDATASET_%d_NAME", k))
		v := C.CSLFetchNameValue(md, key)
		C.free(unsafe.Pointer(key))
		if v == nil {
			break
		}
		name := C.GoString(v)
		sub, err := open(name)
		if err != nil {
			return nil, err
		}
		s := describe(sub)
		if r == nil {
			r = s
		}
		var err2 error
		if s.Width == r.Width && s.Height == r.Height && s.GeoTransform == r.GeoTransform {
			err2 = readBands(sub, r, name[strings.LastIndex(name, ":")+1:])
		}
		C.GDALClose(sub)
		if err2 != nil {
			return nil, err2
		}
	}
	if r == nil {
		return nil, errors.New("no raster bands")
	}
	return r, r.Check()
}

// Write writes r to path in the format its extension names (Driver:
// GeoTIFF for .tif, NetCDF (CF) for .nc), as float64 bands with their
// names (band descriptions; NetCDF variable names), nodata values,
// geotransform and CRS. The file is written beside path and renamed onto
// it, so that path is whole or untouched.
func Write(path string, r *Raster) error {
	drv := Driver(path)
	if drv == "" {
		return fmt.Errorf("%s: not a raster format this writes (.tif, .tiff or .nc)", path)
	}
	if err := r.Check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".part")
	return writeIn(path, tmp, func(tmp string) error { return write(tmp, drv, r) })
}

// writeIn runs write on tmp, a file beside path, in a session and renames
// tmp onto path, so that path is whole or untouched; on failure tmp is
// removed and the error names path.
func writeIn(path, tmp string, write func(tmp string) error) error {
	err := session(func() error { return write(tmp) })
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func write(path, driver string, r *Raster) error {
	mem, err := memory(r, driver == "netCDF")
	if err != nil {
		return err
	}
	defer C.GDALClose(mem)
	cd := C.CString(driver)
	defer C.free(unsafe.Pointer(cd))
	d := C.GDALGetDriverByName(cd)
	if d == nil {
		return fmt.Errorf("this GDAL has no %s driver", driver)
	}
	var opts **C.char
	if driver == "GTiff" {
		opts = cslAdd(opts, "COMPRESS=DEFLATE")
	}
	defer C.CSLDestroy(opts)
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	out := C.GDALCreateCopy(d, cp, mem, 0, opts, nil, nil)
	if out == nil {
		return lastError("not written")
	}
	C.GDALClose(out) // flushes
	if C.CPLGetLastErrorType() >= C.CE_Failure {
		return lastError("not written")
	}
	return nil
}

func cslAdd(l **C.char, s string) **C.char {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return C.CSLAddString(l, cs)
}

// memory returns r as a dataset of GDAL's MEM driver: the source of
// CreateCopy, which every writing driver has.
func memory(r *Raster, netcdf bool) (C.GDALDatasetH, error) {
	cm, ce := C.CString("MEM"), C.CString("")
	defer C.free(unsafe.Pointer(cm))
	defer C.free(unsafe.Pointer(ce))
	ds := C.GDALCreate(C.GDALGetDriverByName(cm), ce, C.int(r.Width), C.int(r.Height), C.int(len(r.Bands)), C.GDT_Float64, nil)
	if ds == nil {
		return nil, lastError("no memory raster")
	}
	var gt [6]C.double
	for i, v := range r.GeoTransform {
		gt[i] = C.double(v)
	}
	C.GDALSetGeoTransform(ds, &gt[0])
	if r.Projection != "" {
		cp := C.CString(r.Projection)
		C.GDALSetProjection(ds, cp)
		C.free(unsafe.Pointer(cp))
	}
	for k, b := range r.Bands {
		h := C.GDALGetRasterBand(ds, C.int(k+1))
		if b.Name != "" {
			setName(h, b.Name, netcdf)
		}
		if b.HasNoData {
			C.GDALSetRasterNoDataValue(h, C.double(b.NoData))
		}
		if C.GDALRasterIO(h, C.GF_Write, 0, 0, C.int(r.Width), C.int(r.Height), unsafe.Pointer(&b.Values[0]),
			C.int(r.Width), C.int(r.Height), C.GDT_Float64, 0, 0) != C.CE_None {
			C.GDALClose(ds)
			return nil, lastError(fmt.Sprintf("band %d not written", k+1))
		}
	}
	return ds, nil
}

// setName sets a band's description and, for NetCDF, its variable name
// (GDAL adds the band's number to it when there are several bands:
// z_hat1, variance2) and its CF long_name (the name itself).
func setName(h C.GDALRasterBandH, name string, netcdf bool) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	C.GDALSetDescription(C.GDALMajorObjectH(h), cn)
	if !netcdf {
		return
	}
	for _, key := range []string{"NETCDF_VARNAME", "long_name"} {
		ck := C.CString(key)
		C.GDALSetMetadataItem(C.GDALMajorObjectH(h), ck, cn, nil)
		C.free(unsafe.Pointer(ck))
	}
}

// ReadPolygons reads the polygons and multipolygons of the first layer of
// a vector file (GeoPackage, shapefile, GeoJSON, any vector GDAL reads),
// in the file's coordinates; a feature of another geometry is an error.
func ReadPolygons(path string) ([]Polygon, error) {
	return readIn(path, readPolygons)
}

func readPolygons(path string) ([]Polygon, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	ds := C.GDALOpenEx(cp, C.GDAL_OF_VECTOR|C.GDAL_OF_READONLY, nil, nil, nil)
	if ds == nil {
		return nil, lastError("not a vector file GDAL reads")
	}
	defer C.GDALClose(ds)
	if C.GDALDatasetGetLayerCount(ds) < 1 {
		return nil, errors.New("no layer")
	}
	layer := C.GDALDatasetGetLayer(ds, 0)
	C.OGR_L_ResetReading(layer)
	var ps []Polygon
	for k := 1; ; k++ {
		f := C.OGR_L_GetNextFeature(layer)
		if f == nil {
			break
		}
		p, err := feature(f, k)
		C.OGR_F_Destroy(f)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, errors.New("no polygons")
	}
	return ps, nil
}

// feature returns feature number k's polygon, named by its first string
// field.
func feature(f C.OGRFeatureH, k int) (Polygon, error) {
	p := Polygon{Name: fmt.Sprint(k)}
	for i := 0; i < int(C.OGR_F_GetFieldCount(f)); i++ {
		def := C.OGR_F_GetFieldDefnRef(f, C.int(i))
		if C.OGR_Fld_GetType(def) == C.OFTString && C.OGR_F_IsFieldSetAndNotNull(f, C.int(i)) != 0 {
			p.Name = C.GoString(C.OGR_F_GetFieldAsString(f, C.int(i)))
			break
		}
	}
	g := C.OGR_F_GetGeometryRef(f)
	if g == nil {
		return p, fmt.Errorf("feature %d has no geometry", k)
	}
	switch C.OGR_GT_Flatten(C.OGR_G_GetGeometryType(g)) {
	case C.wkbPolygon:
		p.Rings = rings(g)
	case C.wkbMultiPolygon:
		for i := 0; i < int(C.OGR_G_GetGeometryCount(g)); i++ {
			p.Rings = append(p.Rings, rings(C.OGR_G_GetGeometryRef(g, C.int(i)))...)
		}
	default:
		return p, fmt.Errorf("feature %d is a %s, not a polygon", k, C.GoString(C.OGR_G_GetGeometryName(g)))
	}
	return p, nil
}

// rings returns the rings of polygon g.
func rings(g C.OGRGeometryH) [][][2]float64 {
	var rs [][][2]float64
	for i := 0; i < int(C.OGR_G_GetGeometryCount(g)); i++ {
		r := C.OGR_G_GetGeometryRef(g, C.int(i))
		n := int(C.OGR_G_GetPointCount(r))
		ring := make([][2]float64, n)
		for j := range ring {
			ring[j] = [2]float64{float64(C.OGR_G_GetX(r, C.int(j))), float64(C.OGR_G_GetY(r, C.int(j)))}
		}
		rs = append(rs, ring)
	}
	return rs
}
