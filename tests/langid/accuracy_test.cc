// Accuracy smoke test: the default dictionary (built into
// build/share/mailwave/langid.dict as part of the normal build) on a handful of
// ordinary sentences written for this test (not taken from the evaluation set).
// The full evaluation is bench/langid.
#include <gtest/gtest.h>

#include <string>

#include "langid/langid.h"
#include "langid/model.h"

namespace mw::langid {
namespace {

const Model* DefaultModel() {
  static const auto model =
      Model::Open(MW_BINARY_DIR "/share/mailwave/langid.dict");
  return model ? &*model : nullptr;
}

struct Sample {
  const char* lang;
  const char* text;  // already lower-case: Detect expects normalised text
};

const Sample kSamples[] = {
    {"en",
     "thank you for your order, we will send the parcel to your address "
     "tomorrow"},
    {"de",
     "vielen dank für ihre bestellung, wir schicken das paket morgen an ihre "
     "adresse"},
    {"fr",
     "merci pour votre commande, nous enverrons le colis à votre adresse "
     "demain"},
    {"es",
     "gracias por su pedido, mañana enviaremos el paquete a su dirección"},
    {"it",
     "grazie per il tuo ordine, domani spediremo il pacco al tuo indirizzo"},
    {"pt",
     "obrigado pela sua encomenda, amanhã enviaremos o pacote para o seu "
     "endereço"},
    {"nl",
     "bedankt voor je bestelling, we sturen het pakket morgen naar je adres"},
    {"pl", "dziękujemy za zamówienie, jutro wyślemy paczkę na twój adres"},
    {"sv",
     "tack för din beställning, vi skickar paketet till din adress i morgon"},
    {"tr",
     "siparişiniz için teşekkür ederiz, paketi yarın adresinize göndereceğiz"},
    {"ru", "спасибо за ваш заказ, завтра мы отправим посылку по вашему адресу"},
    {"uk",
     "дякуємо за ваше замовлення, завтра ми надішлемо посилку на вашу адресу"},
    {"ar", "شكرا لك على طلبك، سنرسل الطرد إلى عنوانك غدا"},
    {"el", "ευχαριστούμε για την παραγγελία σας, θα στείλουμε το δέμα αύριο"},
    {"ja", "ご注文ありがとうございます。明日、荷物を発送いたします。"},
    {"zh", "感谢您的订购，我们明天会把包裹寄到您的地址。"},
};

TEST(AccuracyTest, EverydaySentences) {
  const Model* model = DefaultModel();
  ASSERT_NE(model, nullptr)
      << "default dictionary missing: build the langid_dict target";
  for (const Sample& s : kSamples) {
    const Language l = Detect(s.text, *model, Options{});
    EXPECT_EQ(l.code, s.lang) << s.text << " (score " << l.score << ", second "
                              << l.second << " " << l.second_score << ")";
  }
}

// A message with an English and a German paragraph, as normalised text.
TEST(AccuracyTest, BilingualSample) {
  const Model* model = DefaultModel();
  ASSERT_NE(model, nullptr);
  const Language l = Detect(
      "thank you for your order, we will send the parcel tomorrow.\n\n"
      "vielen dank für ihre bestellung, wir schicken das paket morgen",
      *model, Options{});
  EXPECT_TRUE(l.code == "en+de" || l.code == "de+en")
      << l.code << " " << l.score;
}

}  // namespace
}  // namespace mw::langid
