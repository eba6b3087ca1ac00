// How a figure builder draws: for the window, or for paper. A figure on paper carries nothing of
// the window's state (the highlighted matrix); one that goes under a caption has no title, and its
// axis labels say what the title would have said (the layers averaged, the step shown).
#pragma once

#include <QString>

namespace rankscope {

struct FigureMode {
    bool interactive = true; // false on paper: no highlighted matrix, no current-step line
    bool titled = true;      // false: no title names what is shown; the axis labels do
};

// `label` with what a left-out title said: "Stable rank (mean of layers 0–3)"; a label that ends
// in parentheses takes it inside them: "Compression % (τ = 0.90, mean of layers 0–3)".
inline QString labelWithScope(const QString &label, const QString &scope)
{
    if (scope.isEmpty())
        return label;
    if (label.endsWith(QLatin1Char(')')))
        return label.chopped(1) + QStringLiteral(", ") + scope + QLatin1Char(')');
    return label + QStringLiteral(" (") + scope + QLatin1Char(')');
}

} // namespace rankscope
