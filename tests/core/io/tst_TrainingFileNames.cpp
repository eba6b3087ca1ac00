#include "io/CheckpointFormats.h"
#include "io/TrainingFileNames.h"
#include "TestSuite.h"

namespace tst_trainingfilenames {

using namespace rankscope;

class TestTrainingFileNames : public QObject {
    Q_OBJECT
private slots:
    // The suffixes come from the format table's rows, each format its own (a new format adds its
    // own); what the formats here are saved as is among them, and nothing training writes beside.
    void weightSuffixes()
    {
        const QStringList suffixes = weightFileSuffixes();
        for (const char *suffix : {"bin", "ckpt", "h5", "hdf5", "nemo", "npz", "pt", "pth", "safetensors"})
            QVERIFY2(suffixes.contains(QLatin1String(suffix)), suffix);
        for (const char *suffix : {"json", "yaml", "txt", "npy", "index.json"})
            QVERIFY2(!suffixes.contains(QLatin1String(suffix)), suffix);
        QCOMPARE(QSet<QString>(suffixes.begin(), suffixes.end()).size(), suffixes.size());
    }

    // What training writes beside the weights, by its name; the first kind that fits decides
    // (hparams.yaml is training arguments before it is configuration, tokenizer_config.json a
    // tokenizer file before a configuration).
    void knowsSidecarsByName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");
        const QList<std::pair<const char *, const char *>> rows = {
            {"optimizer.pt", "optimizer state"},
            {"optim_000100_rank0.pt", "optimizer state"},
            {"OPTIMIZER.PT", "optimizer state"},
            {"scheduler.pt", "learning-rate scheduler state"},
            {"lr_scheduler.bin", "learning-rate scheduler state"},
            {"scaler.pt", "gradient scaler state"},
            {"grad_scaler.pt", "gradient scaler state"},
            {"gradscaler.pth", "gradient scaler state"},
            {"rng_state_0.pth", "random number generator state"},
            {"random_states_3.pkl", "random number generator state"},
            {"sampler.bin", "data loader state"},
            {"sampler_1.bin", "data loader state"},
            {"dl_state_dict.bin", "data loader state"},
            {"custom_checkpoint_0.pkl", "an object registered for checkpointing (Accelerate's save_state)"},
            {"recipe_state.pt", "torchtune's recipe state (optimizer, epochs run, seed)"},
            {"training_args.bin", "training arguments"},
            {"args.json", "training arguments"},
            {"hparams.yaml", "training arguments"},
            {"hyperparameters.json", "training arguments"},
            {"trainer_state.json", "trainer state (step, logs)"},
            {"meta_000500.json", "checkpoint metadata (step, model config)"},
            {"tokenizer.json", "tokenizer"},
            {"tokenizer_config.json", "tokenizer"},
            {"tokenizer.model", "tokenizer"},
            {"special_tokens_map.json", "tokenizer"},
            {"added_tokens.json", "tokenizer"},
            {"vocab.json", "tokenizer"},
            {"vocab.txt", "tokenizer"},
            {"merges.txt", "tokenizer"},
            {"spiece.model", "tokenizer"},
            {"cl100k_base.tiktoken", "tokenizer"},
            {"config.json", "model configuration"},
            {"generation_config.json", "model configuration"},
            {"adapter_config.json", "model configuration"},
            {"preprocessor_config.json", "model configuration"},
            {"train.yaml", "configuration"},
            {"run.YML", "configuration"},
            {"pyproject.toml", "configuration"},
            {"setup.cfg", "configuration"},
            {"events.out.tfevents.1700000000.host.123.0", "TensorBoard event file"},
            {"train.log", "log"},
            {"slurm-1234.out", "log"},
            {"job.err", "log"},
            {"stdout", "log"},
            {"stderr.txt", "log"},
            {"logs", "log"},
            {"loss.png", "image"},
            {"curve.JPEG", "image"},
            {"plot.svg", "image"},
            {"figure.pdf", "image"},
        };
        for (const auto &[name, kind] : rows)
            QTest::newRow(name) << QString::fromLatin1(name) << QString::fromLatin1(kind);
    }
    void knowsSidecarsByName()
    {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QCOMPARE(trainingSidecarKind(name), kind);
        QVERIFY(isTrainingSidecar(name));
    }

    // Names that hold weights, or might: no pattern claims them, since every pattern is anchored.
    void neverClaimsWeights_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"pytorch_model.bin", "model.safetensors", "model-00001-of-00002.safetensors", "ckpt_001000.pt",
                                 "model_000500.pt", "consolidated.00.pth", "adapter_model.safetensors", "tf_model.h5",
                                 "weights.npz", "last.ckpt", "epoch=3-step=1000.ckpt", "model_optimized.pt", "my_scheduler_free_model.pt",
                                 "config.json.pt", "pretokenized_data.safetensors", "meta_final.json", "model_args.bin", "logsumexp.pt",
                                 "events.pt", "optimizer", "scheduler", "config", "vocab.json.bak", "trainer_state.json.pt",
                                 "pytorch_model_fsdp.bin", "hf_model_0001_2.pt", "meta_model_2.pt", "sampler_model.bin", "recipe_state_model.pt", ""})
            QTest::newRow(*name ? name : "(empty)") << QString::fromLatin1(name);
    }
    void neverClaimsWeights()
    {
        QFETCH(QString, name);
        QCOMPARE(trainingSidecarKind(name), QString());
        QVERIFY(!isTrainingSidecar(name));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTrainingFileNames)
} // namespace tst_trainingfilenames

#include "tst_TrainingFileNames.moc"
