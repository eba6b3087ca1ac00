// The Spectrum tab's own choice of matrix: run (when several are compared), block (for a model
// of several stacks), type, layer, expert (for MoE layers) and step, each listing what the run
// holds there. A click on a bar, cell or point elsewhere sets it too.
#pragma once

#include "figures/ViewState.h"

#include <QWidget>
#include <optional>

class QComboBox;
class QLabel;

namespace rankscope {

class MatrixPicker : public QWidget {
    Q_OBJECT
public:
    explicit MatrixPicker(ViewState *state, QWidget *parent = nullptr);

    // Shows a matrix as chosen, without emitting picked().
    void setKey(const std::optional<MatrixKey> &key);
    std::optional<MatrixKey> key() const { return m_key; }
    // The combo boxes, in order: run, block, type, layer, expert, step.
    QList<QComboBox *> boxes() const { return {m_run, m_block, m_type, m_layer, m_expert, m_step}; }
    // Without its step box, for a view that shows every step (the spectrum over steps).
    void setStepShown(bool shown);

signals:
    void picked(const rankscope::MatrixKey &key);

private:
    // Lists what the chosen run holds, keeping each choice where it still exists, else the
    // nearest one: a layer the new block lacks gives its first layer.
    void repopulate();
    void onChosen();
    QComboBox *addBox(const QString &label, QLabel **labelOut);

    ViewState *m_state;
    std::optional<MatrixKey> m_key;
    bool m_chosen = false; // by the user or setKey(); until then the key is the default
    QComboBox *m_run, *m_block, *m_type, *m_layer, *m_expert, *m_step;
    QLabel *m_runLabel = nullptr, *m_blockLabel = nullptr, *m_expertLabel = nullptr, *m_stepLabel = nullptr;
    bool m_filling = false;
};

} // namespace rankscope
