// What a typed matrix is within one checkpoint: (block, layer, type, expert). No two matrices of a
// checkpoint share one. The order is the contract's: block, layer, type, expert.
#pragma once

#include "model/MatrixType.h"

#include <QHashFunctions>
#include <QString>
#include <compare>

namespace rankscope {

struct MatrixIdentity {
    QString block;  // the stack: empty for a single-stack model; "encoder", "decoder-cross", "vision", …
    int layer = 0;
    MatrixType type = MatrixType::Q;
    QString expert; // an MoE expert's index, "shared" for a shared expert, empty otherwise

    bool operator==(const MatrixIdentity &other) const = default;
    // Blocks by name (the empty one first), layers and types in order, experts by number, then "shared".
    std::strong_ordering operator<=>(const MatrixIdentity &other) const;
    // "decoder-cross layer 3 Q expert 5": for messages and tooltips.
    QString text() const;
};

inline constexpr const char *kSharedExpert = "shared";

// Experts ordered by number, non-numbers (e.g. "shared") after them by name; empty first.
std::strong_ordering compareExperts(const QString &a, const QString &b);

inline size_t qHash(const MatrixIdentity &id, size_t seed = 0)
{
    return qHashMulti(seed, id.block, id.layer, int(id.type), id.expert);
}

} // namespace rankscope
