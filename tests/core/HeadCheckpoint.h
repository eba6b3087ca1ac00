// Tiny checkpoints whose every attention head has a spectrum of its own, for the --heads tests:
// the per-head factors a model computes with (HeadFixture) and LLaMA's q/k/v/o_proj written from
// them with grouped-query attention (writeLlama). A wrong slice, orientation or key/value group
// gives other singular values.
#pragma once

#include "FamilyCheckpoint.h"

namespace rankscope::test::headfixture {

using M = Eigen::MatrixXd;

constexpr int D = 16, HEADS = 4, HD = 4, LAYERS = 2;

// What the model computes with, per head: each factor d × head_dim (x·W_Q^h is head h's query;
// W_O^h is head_dim × d, z_h·W_O^h its share of the output).
struct Heads {
    QList<M> q, k, v, o; // o: W_O^h (head_dim × d)
};

// The stored values are float32: the reference is computed from exactly those.
inline M asStored(const M &m) { return m.cast<float>().cast<double>(); }

class HeadFixture {
public:
    explicit HeadFixture(int kvHeads) : m_kv(kvHeads) {}

    // A factor d × head_dim with σ = c, c/2, …, c unique to it.
    M factor(int rows, int cols)
    {
        const double c = 1.25 + 0.37 * double(m_made++);
        Eigen::VectorXd s(std::min(rows, cols));
        for (Eigen::Index i = 0; i < s.size(); ++i)
            s[i] = c / double(i + 1) + 0.01 * double(i);
        return asStored(withSingularValues(rows, cols, s, m_rng));
    }
    Heads layer()
    {
        Heads h;
        for (int i = 0; i < HEADS; ++i)
            h.q << factor(D, HD);
        for (int g = 0; g < m_kv; ++g) {
            h.k << factor(D, HD);
            h.v << factor(D, HD);
        }
        for (int i = 0; i < HEADS; ++i)
            h.o << factor(HD, D);
        return h;
    }
    int kv() const { return m_kv; }

private:
    int m_kv;
    int m_made = 0;
    std::mt19937_64 m_rng{20261201};
};

// The factors side by side as columns (x·W for every head at once): W_Q of GPT-2's Conv1D.
inline M sideBySide(const QList<M> &factors)
{
    M out(factors[0].rows(), factors.size() * factors[0].cols());
    for (qsizetype i = 0; i < factors.size(); ++i)
        out.middleCols(i * factors[0].cols(), factors[0].cols()) = factors[i];
    return out;
}

// LLaMA (modeling_llama.py): nn.Linear weights (out, in); q_proj [heads·hd, d] with head h in rows
// h·hd …, k_proj and v_proj [kv·hd, d], o_proj [d, heads·hd] whose columns h·hd … take head h.
inline QList<Heads> writeLlama(FamilyCheckpoint &f, HeadFixture &fixture)
{
    QList<Heads> layers;
    for (int l = 0; l < LAYERS; ++l) {
        const Heads w = fixture.layer();
        const QString p = QStringLiteral("model.layers.%1.").arg(l);
        f.add(p + "self_attn.q_proj.weight", sideBySide(w.q).transpose());
        f.add(p + "self_attn.k_proj.weight", sideBySide(w.k).transpose());
        f.add(p + "self_attn.v_proj.weight", sideBySide(w.v).transpose());
        f.add(p + "self_attn.o_proj.weight", stackRows(w.o).transpose());
        f.add(p + "mlp.gate_proj.weight", f.other(32, D));
        f.add(p + "mlp.up_proj.weight", f.other(32, D));
        f.add(p + "mlp.down_proj.weight", f.other(D, 32));
        layers << w;
    }
    f.add("model.embed_tokens.weight", f.other(64, D));
    f.setConfig({{"model_type", "llama"}, {"hidden_size", D}, {"num_attention_heads", HEADS}, {"num_key_value_heads", fixture.kv()},
                 {"num_hidden_layers", LAYERS}, {"intermediate_size", 32}});
    return layers;
}

} // namespace rankscope::test::headfixture
