// --heads: how each attention matrix of a checkpoint is cut into heads, as its family's forward()
// splits them. Q, K and V give each head its output features, O takes each head's input features;
// the head counts are the config's (or a rules file's "config"), exactly as the fused splits read
// them, and query head h is served by key/value head h / (heads / kv_heads) (transformers'
// repeat_kv). Which axis holds the outputs follows from the shapes: nn.Linear stores (out, in),
// GPT-2's Conv1D (in, out); a Q cut from the columns of a fused Conv1D c_attn says Conv1D for its
// layer, and otherwise (out, in) is taken unless only (in, out) fits the head counts. A layer
// whose matrices do not fit is named with the reason; its whole matrices are analysed as ever.
#pragma once

#include "analysis/planning/SpectrumCostModel.h"
#include "analysis/results/MatrixResult.h"
#include "model/MatrixPart.h"
#include "model/ModelConfig.h"

#include <QHash>
#include <QList>

namespace rankscope {

// One matrix's heads as stored: `heads` blocks of `headSize` rows (alongRows) or columns.
struct HeadCut {
    int heads = 0;
    qint64 headSize = 0;
    bool alongRows = true;
    // Query heads per key/value head (heads / kv_heads): how kvHead follows from a query head.
    int groupSize = 1;
    bool keyValue = false; // a K or V: its heads are the key/value heads themselves
    int kvHeadOf(int head) const { return keyValue ? head : head / groupSize; }
};

// An attention matrix of the checkpoint, as its part is cut from its tensor.
struct AttentionPart {
    MatrixIdentity id;
    QString label;
    MatrixShape shape;
    MatrixPart::Axis axis = MatrixPart::Axis::Rows; // how the part lies in its tensor
};

class HeadPlan {
public:
    static HeadPlan of(const QList<AttentionPart> &parts, const ModelConfig &config);

    // nullptr for a matrix whose heads are not cut (an MLP matrix, a layer that does not fit).
    const HeadCut *cutOf(const MatrixIdentity &id) const;
    // Why a layer's heads are not cut: (the tensor to name, the reason).
    QList<std::pair<QString, QString>> problems;

private:
    QHash<MatrixIdentity, HeadCut> m_cuts;
};

} // namespace rankscope
