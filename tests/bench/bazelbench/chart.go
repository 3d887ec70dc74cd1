package main

import (
	"fmt"
	"math"
	"strings"
)

// series is one line of a panel: a way of building, seconds against the
// number of targets.
type series struct {
	name   string
	color  string
	points [][2]float64 // (targets, seconds)
}

// panel is one small chart: a scenario (clean build, adding a target, ...).
type panel struct {
	title  string
	series []series
}

const (
	panelW, panelH                     = 300.0, 220.0
	marginL, marginB, marginT, marginR = 48.0, 36.0, 28.0, 12.0
)

// svgChart draws the panels side by side with a shared legend: a
// deterministic text (fixed formatting, no timestamps).
func svgChart(title string, panels []panel) string {
	var b strings.Builder
	width := panelW * float64(len(panels))
	height := panelH + 40
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%.0f" y="16" text-anchor="middle" font-size="13">%s</text>`+"\n", width/2, escape(title))
	for i, p := range panels {
		drawPanel(&b, p, float64(i)*panelW, 20)
	}
	if len(panels) > 0 {
		for i, s := range panels[0].series {
			x := 20 + float64(i)*220
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", x, height-12, x+24, height-12, s.color)
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+30, height-8, escape(s.name))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func drawPanel(b *strings.Builder, p panel, x0, y0 float64) {
	maxX, maxY := 1.0, 0.0
	for _, s := range p.series {
		for _, pt := range s.points {
			maxX = math.Max(maxX, pt[0])
			maxY = math.Max(maxY, pt[1])
		}
	}
	maxY = niceCeil(maxY)
	left, right := x0+marginL, x0+panelW-marginR
	top, bottom := y0+marginT, y0+panelH-marginB
	px := func(x float64) float64 { return left + (right-left)*x/maxX }
	py := func(y float64) float64 { return bottom - (bottom-top)*y/maxY }
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (left+right)/2, y0+14, escape(p.title))
	fmt.Fprintf(b, `<path d="M%.1f %.1fV%.1fH%.1f" fill="none" stroke="#444"/>`+"\n", left, top, bottom, right)
	for i := 0; i <= 4; i++ {
		y := maxY * float64(i) / 4
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, py(y)+4, trim(y))
	}
	for _, pt := range p.series[0].points {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(pt[0]), bottom+14, trim(pt[0]))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">targets</text>`+"\n", (left+right)/2, bottom+28)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">seconds</text>`+"\n",
		x0+12, (top+bottom)/2, x0+12, (top+bottom)/2)
	for _, s := range p.series {
		var pts []string
		for _, pt := range s.points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(pt[0]), py(pt[1])))
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), s.color)
		for _, pt := range s.points {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(pt[0]), py(pt[1]), s.color)
		}
	}
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten (at least 1).
func niceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trim(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
