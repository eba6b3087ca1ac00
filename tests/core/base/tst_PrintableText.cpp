#include "base/PrintableText.h"
#include "TestSuite.h"

#include <limits>

namespace tst_printabletext {

using namespace rankscope;

namespace {

// One character, built from UTF-16 units: QString::fromUcs4 would drop a leading U+FEFF as a
// byte-order mark.
QString fromUcs4(char32_t c)
{
    if (!QChar::requiresSurrogates(c))
        return QString(QChar(char16_t(c)));
    const QChar pair[2] = {QChar(QChar::highSurrogate(c)), QChar(QChar::lowSurrogate(c))};
    return QString(pair, 2);
}

} // namespace

class TestPrintableText : public QObject {
    Q_OBJECT
private slots:
    // Text with nothing to escape comes back as it is: letters of every script, emoji (outside
    // the BMP), punctuation, and a backslash (which is not doubled).
    void keepsPrintableText()
    {
        for (const QString &text : {QString(), QStringLiteral("model.layers.0.self_attn.q_proj.weight"), QStringLiteral("Gewichte_äöü_ß"),
                                    QStringLiteral("模型权重"), QStringLiteral("веса"), QStringLiteral("وزن"), fromUcs4(0x1F600) + QStringLiteral(" ok"),
                                    QStringLiteral("C:\\runs\\a b"), QStringLiteral("~!@#$%^&*()_+{}|:\"<>?`-=[];',./"), QStringLiteral("\u00A0nbsp")})
            QCOMPARE(printableText(text), text);
    }

    // Every control and invisible formatting character as the escape that names it.
    void escapesWhatCouldDriveATerminal_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("printed");
        QTest::newRow("newline") << QStringLiteral("a\nb") << QStringLiteral("a\\nb");
        QTest::newRow("carriage return") << QStringLiteral("ok\rFAKE") << QStringLiteral("ok\\rFAKE");
        QTest::newRow("tab") << QStringLiteral("a\tb") << QStringLiteral("a\\tb");
        QTest::newRow("nul") << QString(QChar(0)) + QStringLiteral("x") << QStringLiteral("\\x00x");
        QTest::newRow("escape sequence") << QStringLiteral("\x1b[2Jgone") << QStringLiteral("\\x1b[2Jgone");
        QTest::newRow("window title") << QStringLiteral("\x1b]0;owned\x07") << QStringLiteral("\\x1b]0;owned\\x07");
        QTest::newRow("backspace") << QStringLiteral("warning\x08\x08") << QStringLiteral("warning\\x08\\x08");
        QTest::newRow("unit separator") << QStringLiteral("\x1f") << QStringLiteral("\\x1f");
        QTest::newRow("delete") << QStringLiteral("\x7f") << QStringLiteral("\\x7f");
        QTest::newRow("C1 NEL") << fromUcs4(0x85) << QStringLiteral("\\x85");
        QTest::newRow("C1 CSI") << fromUcs4(0x9B) + QStringLiteral("31m") << QStringLiteral("\\x9b31m");
        QTest::newRow("last C1") << fromUcs4(0x9F) << QStringLiteral("\\x9f");
        QTest::newRow("right-to-left override") << QStringLiteral("txt") + fromUcs4(0x202E) + QStringLiteral("fdp.exe")
                                                << QStringLiteral("txt\\u{202e}fdp.exe");
        QTest::newRow("zero-width space") << QStringLiteral("q") + fromUcs4(0x200B) + QStringLiteral("_proj") << QStringLiteral("q\\u{200b}_proj");
        QTest::newRow("byte order mark") << fromUcs4(0xFEFF) + QStringLiteral("a") << QStringLiteral("\\u{feff}a");
        QTest::newRow("soft hyphen") << QStringLiteral("a") + fromUcs4(0x00AD) << QStringLiteral("a\\xad");
        QTest::newRow("line separator") << fromUcs4(0x2028) << QStringLiteral("\\u{2028}");
        QTest::newRow("paragraph separator") << fromUcs4(0x2029) << QStringLiteral("\\u{2029}");
        QTest::newRow("isolate") << fromUcs4(0x2066) + QStringLiteral("x") + fromUcs4(0x2069) << QStringLiteral("\\u{2066}x\\u{2069}");
        QTest::newRow("tag outside the BMP") << fromUcs4(0xE0001) << QStringLiteral("\\u{e0001}");
        QTest::newRow("emoji kept beside an escape") << fromUcs4(0x1F600) + QStringLiteral("\n") + QStringLiteral("é")
                                                     << fromUcs4(0x1F600) + QStringLiteral("\\né");
    }
    void escapesWhatCouldDriveATerminal()
    {
        QFETCH(QString, text);
        QFETCH(QString, printed);
        QCOMPARE(printableText(text), printed);
    }

    // What comes out never holds a control or format character, whatever came in, and printing
    // it again changes nothing: every escape is itself printable.
    void outputIsPrintableAndStable()
    {
        QString every;
        for (char32_t c = 1; c < 0x3000; ++c)
            if (!QChar::isSurrogate(c))
                every += fromUcs4(c);
        every += fromUcs4(0xE0001) + fromUcs4(0xFFF9) + fromUcs4(0x10FFFF);
        const QString once = printableText(every);
        for (const uint c : once.toUcs4()) {
            QVERIFY2(c >= 0x20 && !(c >= 0x7F && c <= 0x9F), qPrintable(QString::number(c, 16)));
            QVERIFY2(QChar::category(c) != QChar::Other_Format && QChar::category(c) != QChar::Separator_Line &&
                         QChar::category(c) != QChar::Separator_Paragraph,
                     qPrintable(QString::number(c, 16)));
        }
        QCOMPARE(printableText(once), once);
    }

    // An unpaired surrogate (no character; a name decoded from broken UTF-16) is replaced by
    // U+FFFD where the text is rewritten, never passed on half.
    void replacesUnpairedSurrogatesWhenRewriting()
    {
        const QString broken = QString(QChar(0xD800)) + QStringLiteral("\n");
        QCOMPARE(printableText(broken), QString(QChar(0xFFFD)) + QStringLiteral("\\n"));
    }

    // A list in a message names the first few, then how many more: a count a name or a config
    // claims (2⁴⁰ ranks) is said as a number, never listed.
    void briefListNamesAFewThenCounts()
    {
        QCOMPARE(briefList({}), QString());
        QCOMPARE(briefList({"a"}), QStringLiteral("a"));
        QCOMPARE(briefList({"a", "b", "c", "d", "e"}), QStringLiteral("a, b, c, d, e"));
        QCOMPARE(briefList({"a", "b", "c", "d", "e", "f", "g"}), QStringLiteral("a, b, c, d, e and 2 more"));
        // Only the first few built; the total told apart.
        QCOMPARE(briefList({"1", "2"}, qint64(1) << 40), QStringLiteral("1, 2 and 1099511627774 more"));
        QCOMPARE(briefList({"1", "2"}, 1), QStringLiteral("1, 2")); // a total below what is listed is no total
        QCOMPARE(briefList({"x: why", "y: why"}, -1, QStringLiteral("; ")), QStringLiteral("x: why; y: why"));
    }

    // Each item printable and cut: one name cannot make the line long or drive the terminal.
    void briefListItemsArePrintableAndCut()
    {
        const QString longName = QString(500, QLatin1Char('m')) + QStringLiteral(".safetensors");
        const QString one = briefList({longName});
        QCOMPARE(one, QString(kBriefListItemLength, QLatin1Char('m')) + QStringLiteral("…"));
        QCOMPARE(briefList({QStringLiteral("a\nb")}), QStringLiteral("a\\nb"));
        // Escapes lengthen a name: the printed text is what is cut.
        const QString escapes(200, QChar(0x1b));
        QVERIFY(briefList({escapes}).size() <= kBriefListItemLength + 1);
        // A surrogate pair at the cut is kept whole or left out, never split.
        const QString emoji = QString(kBriefListItemLength - 1, QLatin1Char('e')) + fromUcs4(0x1F600) + QStringLiteral("tail");
        const QString cut = briefList({emoji}, -1, QStringLiteral(", "), kBriefListItemLength);
        QVERIFY(!cut.at(cut.size() - 2).isHighSurrogate());
        QCOMPARE(cut, QString(kBriefListItemLength - 1, QLatin1Char('e')) + QStringLiteral("…"));
        // However many and however long, the list stays short.
        QStringList many;
        for (int i = 0; i < 100000; ++i)
            many << QString(300, QLatin1Char('n')) + QString::number(i);
        QVERIFY(briefList(many).size() < 500);
        QVERIFY(briefList(many, std::numeric_limits<qint64>::max()).size() < 500);
        // Long items (a file and why it is not read) take fewer places: the first always, whole up
        // to its length, then as many as fit kBriefListLength.
        const QString reason = QString(250, QLatin1Char('r'));
        QCOMPARE(briefList({reason, reason, reason, reason}, -1, QStringLiteral("; "), 300), reason + "; " + reason + " and 2 more");
        const QString huge = briefList(many, std::numeric_limits<qint64>::max(), QStringLiteral("; "), 100000);
        QVERIFY2(huge.size() <= kBriefListLength + 30, qPrintable(QString::number(huge.size())));
        QCOMPARE(huge, QString(300, QLatin1Char('n')) + QStringLiteral("0 and %1 more").arg(std::numeric_limits<qint64>::max() - 1));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestPrintableText)
} // namespace tst_printabletext

#include "tst_PrintableText.moc"
