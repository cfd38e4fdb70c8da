/// An inline SVG bar chart, laid out here and drawn by the `bars` template: every coordinate is a number computed
/// on the server, every label goes through the template's escaping, and the colours come from the stylesheet by
/// series name (the CSP allows no inline style).
struct BarChart: Sendable {
    /// One rectangle: its series (a CSS class), its box and its tooltip.
    struct Bar: Sendable {
        var series: String
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var label: String
    }

    /// A text under the axis.
    struct Label: Sendable {
        var x: Int
        var y: Int
        var text: String
    }

    /// A dashed horizontal line at a value (a target share).
    struct Guide: Sendable {
        var y: Int
        /// The label's baseline, just above the line.
        var labelY: Int
        var label: String
    }

    /// A series' swatch and name.
    struct LegendItem: Sendable {
        var series: String
        var label: String
    }

    /// One column: its label and its segments, stacked bottom up or side by side.
    struct Column: Sendable {
        var label: String
        var segments: [(series: String, value: Double)]
    }

    var caption: String
    let width = 760
    let height = 230
    let left = 48
    let right = 750
    let top = 16
    let baseline = 196
    let tickX = 4
    var maximum: String
    var bars: [Bar] = []
    var labels: [Label] = []
    var guide: Guide?
    var legend: [LegendItem]
    /// Stored, not computed: the template reads properties through reflection, which sees stored ones only.
    var hasLegend: Bool

    /// Lays out `columns`: `stacked` piles each column's segments, otherwise they stand side by side. The scale
    /// runs to `scale` when given (a percentage chart), else to the largest column.
    init(caption: String, columns: [Column], stacked: Bool, legend: [LegendItem], scale: Double? = nil, unit: String = "", labelEvery: Int? = nil) {
        self.caption = caption
        self.legend = legend
        hasLegend = !legend.isEmpty
        let largest = columns.map { column in
            stacked ? column.segments.reduce(0) { $0 + $1.value } : column.segments.map { $0.value }.max() ?? 0
        }.max() ?? 0
        let scaleTop = max(scale ?? largest, 1)
        maximum = Self.number(scaleTop) + unit
        guard !columns.isEmpty else { return }
        let span = Double(right - left)
        let slot = span / Double(columns.count)
        let plot = Double(baseline - self.top)
        let every = labelEvery ?? max(1, Int((Double(columns.count) / 6).rounded(.up)))
        for (index, column) in columns.enumerated() {
            let x0 = Double(left) + slot * Double(index)
            var stackedHeight = 0.0
            let segmentWidth = stacked ? max(slot - 2, 1) : max((slot - 2) / Double(max(column.segments.count, 1)), 1)
            for (offset, segment) in column.segments.enumerated() where segment.value > 0 {
                let height = max(plot * segment.value / scaleTop, 1)
                let x = stacked ? x0 + 1 : x0 + 1 + segmentWidth * Double(offset)
                let y = stacked ? Double(baseline) - stackedHeight - height : Double(baseline) - height
                stackedHeight += stacked ? height : 0
                bars.append(Bar(
                    series: segment.series, x: Int(x.rounded()), y: Int(y.rounded()), width: Int(segmentWidth.rounded(.down)),
                    height: Int(height.rounded()), label: "\(column.label): \(segment.series) \(Self.number(segment.value))\(unit)"
                ))
            }
            if index % every == 0 {
                labels.append(Label(x: Int(x0.rounded()), y: baseline + 16, text: column.label))
            }
        }
    }

    /// Puts a dashed line at `value` of the scale `scale`.
    mutating func addGuide(at value: Double, scale: Double, label: String) {
        let plot = Double(baseline - top)
        let y = Int((Double(baseline) - plot * min(max(value, 0), scale) / max(scale, 1)).rounded())
        guide = Guide(y: y, labelY: max(y - 4, top), label: label)
    }

    /// A count as an integer, a share with one decimal.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
