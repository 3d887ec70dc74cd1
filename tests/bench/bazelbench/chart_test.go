package main

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestSVGChart(t *testing.T) {
	panels := []panel{
		{"clean build", []series{
			{"per target", "#1f77b4", [][2]float64{{3, 10}, {5, 16}, {8, 25}}},
			{"multi-arch", "#d62728", [][2]float64{{3, 9}, {5, 15}, {8, 24}}},
		}},
		{"edit <one> source", []series{
			{"per target", "#1f77b4", [][2]float64{{3, 1}, {5, 1.5}, {8, 2}}},
			{"multi-arch", "#d62728", [][2]float64{{3, 2}, {5, 3}, {8, 4}}},
		}},
	}
	svg := svgChart("S = 12 sources", panels)
	// Well-formed XML, one polyline per series, a point per measurement.
	d := xml.NewDecoder(strings.NewReader(svg))
	counts := map[string]int{}
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not XML: %v\n%s", err, svg)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			counts[se.Name.Local]++
		}
	}
	if counts["polyline"] != 4 || counts["circle"] != 12 {
		t.Errorf("polylines %d, circles %d; want 4, 12", counts["polyline"], counts["circle"])
	}
	if !strings.Contains(svg, "edit &lt;one&gt; source") {
		t.Error("panel titles are not escaped")
	}
	if svgChart("S = 12 sources", panels) != svg {
		t.Error("the chart is not deterministic")
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 0.5: 1, 3: 5, 12: 20, 25: 50, 101: 200, 500: 500} {
		if got := niceCeil(in); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}
