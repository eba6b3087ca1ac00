// Tick labels a reader can read at any size: numbers at a round step that leaves room between
// neighbours and labels at least three ticks where the axis allows it; layers labelled each one
// when they fit, else at a regular step that keeps the first and the last.
#pragma once

#include <QList>
#include <qcustomplot.h>

namespace rankscope {

// Of `count` category labels (layers) `spacing` pixels apart, whose labels need `labelSpan`
// pixels each (label and gap), the indices to label: every one when they fit; else every s-th for
// the smallest s of 1, 2, 4, 5, 10, 20, 25, 50, … that fits, preferring a step up to 2.5 × larger
// that ends on the last label; else the step's labels and the last, the one too near it left out.
// The first and the last label are always among them (the last when it does not touch the first).
QList<int> categoryTickIndices(int count, double spacing, double labelSpan);

// A linear axis' ticker that reads its axis' length and tick label font at every layout (so a
// resize or a zoom gets ticks that fit): the smallest step of 1, 2, 2.5 or 5 × 10ⁿ whose labels
// have an em and a half between them (horizontal) or two lines' height (vertical); when that
// labels fewer than three ticks, a finer step whose labels still do not touch. No minor ticks.
// An axis whose values are whole numbers (training steps) says so with markWholeNumbers: its
// step is then a whole number, never 0.5 (one checkpoint at step 0 read "-1, -0.5, 0, 0.5, 1").
class ReadableTicker : public QCPAxisTicker {
public:
    explicit ReadableTicker(QCPAxis *axis) : m_axis(axis) {}
    static void markWholeNumbers(QCPAxis *axis, bool whole) { axis->setProperty("wholeNumbers", whole); }
    // The step chosen for a range, as the ticks will have it (for tests and the precision).
    double stepFor(const QCPRange &range) const;

protected:
    double getTickStep(const QCPRange &range) override;
    int getSubTickCount(double) override { return 0; }

private:
    // The pixels one label of the ticks at `step` in `range` needs along the axis: comfortable, or
    // just not touching.
    double labelExtent(const QCPRange &range, double step, bool tight) const;
    QCPAxis *m_axis;
};

} // namespace rankscope
