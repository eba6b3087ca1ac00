// One typed matrix inside a stored tensor: the whole tensor, or the rows (or columns) a fused
// tensor's part occupies. Every fused layout is a repetition of groups (one per head, per key/value
// group, or a single group) in which the part takes `count` consecutive rows at `offset`:
//   [Q; K; V]                groups 1, Q at 0, K at q_rows, V at q_rows + kv_rows
//   [head][q|k|v][head_dim]  groups heads, group size 3·head_dim, K at head_dim
// A 3-D tensor (experts stored together) is cut at `slice` along its first dimension first.
#pragma once

#include "model/MatrixIdentity.h"

#include <QList>
#include <QString>

namespace rankscope {

struct MatrixPart {
    enum class Axis { Rows, Columns };

    MatrixIdentity id;
    QString label; // the tensor name, with the part for a split: "…c_attn.weight[Q]"
    Axis axis = Axis::Rows;
    qint64 groups = 1;
    qint64 groupSize = 0; // rows (or columns) per group
    qint64 offset = 0;    // where the part starts within a group
    qint64 count = 0;     // rows (or columns) the part takes from each group
    qint64 slice = -1;    // index along the first dimension of a 3-D tensor; -1 for a 2-D one

    // The whole of a 2-D tensor (or of one slice of a 3-D one) with `rows` rows.
    static MatrixPart whole(const MatrixIdentity &id, const QString &label, qint64 rows);
    // Rows (or columns) taken from each group.
    qint64 extent() const { return groups * count; }
    bool isWhole(qint64 rows) const { return axis == Axis::Rows && groups == 1 && offset == 0 && count == rows; }
    // Whether the groups tile `length` rows (or columns) and the part lies inside a group.
    bool fits(qint64 length) const;
};

} // namespace rankscope
