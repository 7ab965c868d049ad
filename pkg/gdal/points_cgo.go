//go:build gdal

package gdal

/*
#include <stdlib.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// WritePoints writes the points of p as a GeoPackage (path ending in
// .gpkg) of one point layer, named after the file, with p's CRS and one
// float64 field per column (NaN written as a null field). The file is
// written beside path and renamed onto it, so that path is whole or
// untouched.
func WritePoints(path string, p *Points) error {
	if err := p.check(path); err != nil {
		return err
	}
	layer := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	tmp := filepath.Join(filepath.Dir(path), "."+layer+".part.gpkg")
	os.Remove(tmp) // a crashed run's: GPKG's Create refuses an existing file
	return writeIn(path, tmp, func(tmp string) error { return writePoints(tmp, layer, p) })
}

func writePoints(path, name string, p *Points) error {
	cd := C.CString("GPKG")
	defer C.free(unsafe.Pointer(cd))
	d := C.GDALGetDriverByName(cd)
	if d == nil {
		return errors.New("this GDAL has no GPKG driver")
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	ds := C.GDALCreate(d, cp, 0, 0, 0, C.GDT_Unknown, nil)
	if ds == nil {
		return lastError("not written")
	}
	err := fillPoints(ds, name, p)
	C.GDALClose(ds) // flushes
	if err == nil && C.CPLGetLastErrorType() >= C.CE_Failure {
		err = lastError("not written")
	}
	return err
}

// fillPoints creates the layer name in ds and writes p's features into
// it in one transaction.
func fillPoints(ds C.GDALDatasetH, name string, p *Points) error {
	srs := C.OSRNewSpatialReference(nil)
	defer C.OSRDestroySpatialReference(srs)
	if p.CRS == "" {
		// GeoPackage's default, its undefined geographic SRS, would
		// call planar x, y degrees: an unknown Cartesian one instead.
		cu := C.CString("unknown")
		C.OSRSetLocalCS(srs, cu)
		C.free(unsafe.Pointer(cu))
	} else {
		cc := C.CString(p.CRS)
		ok := C.OSRSetFromUserInput(srs, cc)
		C.free(unsafe.Pointer(cc))
		if ok != C.OGRERR_NONE {
			return fmt.Errorf("CRS %q: not one GDAL reads (EPSG:NNNN, WKT, PROJ)", p.CRS)
		}
		C.OSRSetAxisMappingStrategy(srs, C.OAMS_TRADITIONAL_GIS_ORDER) // x = easting or longitude
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	l := C.GDALDatasetCreateLayer(ds, cn, srs, C.wkbPoint, nil)
	if l == nil {
		return lastError("layer not created")
	}
	for _, f := range p.Names {
		cf := C.CString(f)
		fd := C.OGR_Fld_Create(cf, C.OFTReal)
		C.free(unsafe.Pointer(cf))
		e := C.OGR_L_CreateField(l, fd, 1)
		C.OGR_Fld_Destroy(fd)
		if e != C.OGRERR_NONE {
			return lastError(fmt.Sprintf("field %s not created", f))
		}
	}
	if C.GDALDatasetStartTransaction(ds, 0) != C.OGRERR_NONE {
		return lastError("no transaction")
	}
	defn := C.OGR_L_GetLayerDefn(l)
	for i := range p.X {
		f := C.OGR_F_Create(defn)
		for j, c := range p.Columns {
			if math.IsNaN(c[i]) {
				C.OGR_F_SetFieldNull(f, C.int(j))
			} else {
				C.OGR_F_SetFieldDouble(f, C.int(j), C.double(c[i]))
			}
		}
		g := C.OGR_G_CreateGeometry(C.wkbPoint)
		C.OGR_G_SetPoint_2D(g, 0, C.double(p.X[i]), C.double(p.Y[i]))
		C.OGR_F_SetGeometryDirectly(f, g)
		e := C.OGR_L_CreateFeature(l, f)
		C.OGR_F_Destroy(f)
		if e != C.OGRERR_NONE {
			C.GDALDatasetRollbackTransaction(ds)
			return lastError(fmt.Sprintf("point %d not written", i+1))
		}
	}
	if C.GDALDatasetCommitTransaction(ds) != C.OGRERR_NONE {
		return lastError("not committed")
	}
	return nil
}
