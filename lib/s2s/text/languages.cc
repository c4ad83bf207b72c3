#include "s2s/text/languages.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>
#include <utility>

#include "s2s/core/error.h"
#include "s2s/core/strings.h"

namespace s2s::text {
namespace {

// ISO 639-1 -> the ISO 639-3 code NLLB-200 writes the language with: iso-codes'
// iso_639-3.json alpha_2 of each NLLB language, and for a macrolanguage (ar, fa, ms, sw, ...)
// the individual language NLLB uses for its standard variety (arb, pes, zsm, swh, ...).
const std::map<std::string, std::string>& iso_639_1_to_nllb() {
  static const std::map<std::string, std::string> table = {
    {"af", "afr"}, {"ak", "aka"}, {"am", "amh"}, {"ar", "arb"}, {"as", "asm"}, {"ay", "ayr"},
    {"az", "azj"}, {"ba", "bak"}, {"be", "bel"}, {"bg", "bul"}, {"bm", "bam"}, {"bn", "ben"},
    {"bo", "bod"}, {"bs", "bos"}, {"ca", "cat"}, {"cs", "ces"}, {"cy", "cym"}, {"da", "dan"},
    {"de", "deu"}, {"dz", "dzo"}, {"ee", "ewe"}, {"el", "ell"}, {"en", "eng"}, {"eo", "epo"},
    {"es", "spa"}, {"et", "est"}, {"eu", "eus"}, {"fa", "pes"}, {"fi", "fin"}, {"fj", "fij"},
    {"fo", "fao"}, {"fr", "fra"}, {"ga", "gle"}, {"gd", "gla"}, {"gl", "glg"}, {"gn", "grn"},
    {"gu", "guj"}, {"ha", "hau"}, {"he", "heb"}, {"hi", "hin"}, {"hr", "hrv"}, {"ht", "hat"},
    {"hu", "hun"}, {"hy", "hye"}, {"id", "ind"}, {"ig", "ibo"}, {"is", "isl"}, {"it", "ita"},
    {"ja", "jpn"}, {"jv", "jav"}, {"ka", "kat"}, {"kg", "kon"}, {"ki", "kik"}, {"kk", "kaz"},
    {"km", "khm"}, {"kn", "kan"}, {"ko", "kor"}, {"kr", "knc"}, {"ks", "kas"}, {"ku", "kmr"},
    {"ky", "kir"}, {"lb", "ltz"}, {"lg", "lug"}, {"li", "lim"}, {"ln", "lin"}, {"lo", "lao"},
    {"lt", "lit"}, {"lv", "lvs"}, {"mg", "plt"}, {"mi", "mri"}, {"mk", "mkd"}, {"ml", "mal"},
    {"mn", "khk"}, {"mr", "mar"}, {"ms", "zsm"}, {"mt", "mlt"}, {"my", "mya"}, {"nb", "nob"},
    {"ne", "npi"}, {"nl", "nld"}, {"nn", "nno"}, {"ny", "nya"}, {"oc", "oci"}, {"om", "gaz"},
    {"or", "ory"}, {"pa", "pan"}, {"pl", "pol"}, {"ps", "pbt"}, {"pt", "por"}, {"qu", "quy"},
    {"rn", "run"}, {"ro", "ron"}, {"ru", "rus"}, {"rw", "kin"}, {"sa", "san"}, {"sc", "srd"},
    {"sd", "snd"}, {"sg", "sag"}, {"si", "sin"}, {"sk", "slk"}, {"sl", "slv"}, {"sm", "smo"},
    {"sn", "sna"}, {"so", "som"}, {"sq", "als"}, {"sr", "srp"}, {"ss", "ssw"}, {"st", "sot"},
    {"su", "sun"}, {"sv", "swe"}, {"sw", "swh"}, {"ta", "tam"}, {"te", "tel"}, {"tg", "tgk"},
    {"th", "tha"}, {"ti", "tir"}, {"tk", "tuk"}, {"tl", "tgl"}, {"tn", "tsn"}, {"tr", "tur"},
    {"ts", "tso"}, {"tt", "tat"}, {"tw", "twi"}, {"ug", "uig"}, {"uk", "ukr"}, {"ur", "urd"},
    {"uz", "uzn"}, {"vi", "vie"}, {"wo", "wol"}, {"xh", "xho"}, {"yi", "ydd"}, {"yo", "yor"},
    {"zh", "zho"}, {"zu", "zul"},
  };
  return table;
}

// Edit distance, for "did you mean" lists.
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// NLLB's shape: ISO 639-3 "_" ISO 15924, e.g. "eng_Latn".
bool nllb_shaped(const std::string& t) {
  return t.size() == 8 && is_lower(t[0]) && is_lower(t[1]) && is_lower(t[2]) && t[3] == '_' &&
         t[4] >= 'A' && t[4] <= 'Z' && is_lower(t[5]) && is_lower(t[6]) && is_lower(t[7]);
}

// M2M-100's shape: "__" code "__" with a 2- or 3-letter code, e.g. "__en__", "__ast__".
bool m2m100_shaped(const std::string& t) {
  if (t.size() < 6 || t.size() > 7 || t.compare(0, 2, "__") != 0 ||
      t.compare(t.size() - 2, 2, "__") != 0)
    return false;
  return std::all_of(t.begin() + 2, t.end() - 2, is_lower);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// tokenization_nllb.py FAIRSEQ_LANGUAGE_CODES.
const std::vector<std::string>& nllb_language_codes() {
  static const std::vector<std::string> codes = {
      "ace_Arab", "ace_Latn", "acm_Arab", "acq_Arab", "aeb_Arab", "afr_Latn", "ajp_Arab", "aka_Latn",
      "amh_Ethi", "apc_Arab", "arb_Arab", "ars_Arab", "ary_Arab", "arz_Arab", "asm_Beng", "ast_Latn",
      "awa_Deva", "ayr_Latn", "azb_Arab", "azj_Latn", "bak_Cyrl", "bam_Latn", "ban_Latn", "bel_Cyrl",
      "bem_Latn", "ben_Beng", "bho_Deva", "bjn_Arab", "bjn_Latn", "bod_Tibt", "bos_Latn", "bug_Latn",
      "bul_Cyrl", "cat_Latn", "ceb_Latn", "ces_Latn", "cjk_Latn", "ckb_Arab", "crh_Latn", "cym_Latn",
      "dan_Latn", "deu_Latn", "dik_Latn", "dyu_Latn", "dzo_Tibt", "ell_Grek", "eng_Latn", "epo_Latn",
      "est_Latn", "eus_Latn", "ewe_Latn", "fao_Latn", "pes_Arab", "fij_Latn", "fin_Latn", "fon_Latn",
      "fra_Latn", "fur_Latn", "fuv_Latn", "gla_Latn", "gle_Latn", "glg_Latn", "grn_Latn", "guj_Gujr",
      "hat_Latn", "hau_Latn", "heb_Hebr", "hin_Deva", "hne_Deva", "hrv_Latn", "hun_Latn", "hye_Armn",
      "ibo_Latn", "ilo_Latn", "ind_Latn", "isl_Latn", "ita_Latn", "jav_Latn", "jpn_Jpan", "kab_Latn",
      "kac_Latn", "kam_Latn", "kan_Knda", "kas_Arab", "kas_Deva", "kat_Geor", "knc_Arab", "knc_Latn",
      "kaz_Cyrl", "kbp_Latn", "kea_Latn", "khm_Khmr", "kik_Latn", "kin_Latn", "kir_Cyrl", "kmb_Latn",
      "kon_Latn", "kor_Hang", "kmr_Latn", "lao_Laoo", "lvs_Latn", "lij_Latn", "lim_Latn", "lin_Latn",
      "lit_Latn", "lmo_Latn", "ltg_Latn", "ltz_Latn", "lua_Latn", "lug_Latn", "luo_Latn", "lus_Latn",
      "mag_Deva", "mai_Deva", "mal_Mlym", "mar_Deva", "min_Latn", "mkd_Cyrl", "plt_Latn", "mlt_Latn",
      "mni_Beng", "khk_Cyrl", "mos_Latn", "mri_Latn", "zsm_Latn", "mya_Mymr", "nld_Latn", "nno_Latn",
      "nob_Latn", "npi_Deva", "nso_Latn", "nus_Latn", "nya_Latn", "oci_Latn", "gaz_Latn", "ory_Orya",
      "pag_Latn", "pan_Guru", "pap_Latn", "pol_Latn", "por_Latn", "prs_Arab", "pbt_Arab", "quy_Latn",
      "ron_Latn", "run_Latn", "rus_Cyrl", "sag_Latn", "san_Deva", "sat_Beng", "scn_Latn", "shn_Mymr",
      "sin_Sinh", "slk_Latn", "slv_Latn", "smo_Latn", "sna_Latn", "snd_Arab", "som_Latn", "sot_Latn",
      "spa_Latn", "als_Latn", "srd_Latn", "srp_Cyrl", "ssw_Latn", "sun_Latn", "swe_Latn", "swh_Latn",
      "szl_Latn", "tam_Taml", "tat_Cyrl", "tel_Telu", "tgk_Cyrl", "tgl_Latn", "tha_Thai", "tir_Ethi",
      "taq_Latn", "taq_Tfng", "tpi_Latn", "tsn_Latn", "tso_Latn", "tuk_Latn", "tum_Latn", "tur_Latn",
      "twi_Latn", "tzm_Tfng", "uig_Arab", "ukr_Cyrl", "umb_Latn", "urd_Arab", "uzn_Latn", "vec_Latn",
      "vie_Latn", "war_Latn", "wol_Latn", "xho_Latn", "ydd_Hebr", "yor_Latn", "yue_Hant", "zho_Hans",
      "zho_Hant", "zul_Latn",
  };
  return codes;
}

// tokenization_m2m_100.py FAIRSEQ_LANGUAGE_CODES["m2m100"].
const std::vector<std::string>& m2m100_language_codes() {
  static const std::vector<std::string> codes = {
      "af", "am", "ar", "ast", "az", "ba", "be", "bg", "bn", "br", "bs", "ca", "ceb", "cs", "cy",
      "da", "de", "el", "en", "es", "et", "fa", "ff", "fi", "fr", "fy", "ga", "gd", "gl", "gu", "ha",
      "he", "hi", "hr", "ht", "hu", "hy", "id", "ig", "ilo", "is", "it", "ja", "jv", "ka", "kk",
      "km", "kn", "ko", "lb", "lg", "ln", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my",
      "ne", "nl", "no", "ns", "oc", "or", "pa", "pl", "ps", "pt", "ro", "ru", "sd", "si", "sk", "sl",
      "so", "sq", "sr", "ss", "su", "sv", "sw", "ta", "th", "tl", "tn", "tr", "uk", "ur", "uz", "vi",
      "wo", "xh", "yi", "yo", "zh", "zu",
  };
  return codes;
}

bool LanguageTokens::contains(const std::string& token) const {
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

std::string LanguageTokens::token_of(const std::string& code) const {
  return family == LanguageFamily::m2m100 ? "__" + code + "__" : code;
}

std::string LanguageTokens::code_of(const std::string& token) const {
  if (family == LanguageFamily::m2m100 && token.size() > 4 && token.compare(0, 2, "__") == 0 &&
      token.compare(token.size() - 2, 2, "__") == 0)
    return token.substr(2, token.size() - 4);
  return token;
}

std::string LanguageTokens::codes() const {
  std::vector<std::string> out;
  for (const std::string& token : tokens) out.push_back(code_of(token));
  return join(out, " ");
}

std::string LanguageTokens::resolve(const std::string& given, const std::string& flag) const {
  if (contains(given)) return given;
  if (contains(token_of(given))) return token_of(given);
  std::vector<std::string> matches;  // NLLB: the model's scripts of an ISO 639-1 language
  if (family == LanguageFamily::nllb) {
    const auto it = iso_639_1_to_nllb().find(lower(given));
    const std::string language = it != iso_639_1_to_nllb().end() ? it->second : lower(given);
    for (const std::string& token : tokens)
      if (token.compare(0, language.size() + 1, language + "_") == 0) matches.push_back(token);
    if (matches.size() == 1) return matches.front();
  }
  if (matches.size() > 1)
    throw UsageError(flag + " " + given + ": ambiguous, the model writes it in several scripts: " +
                     join(matches, " "));
  // The closest codes by edit distance.
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const std::string& token : tokens)
    ranked.emplace_back(distance(lower(given), lower(code_of(token))), code_of(token));
  std::sort(ranked.begin(), ranked.end());
  for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) matches.push_back(ranked[i].second);
  throw UsageError(flag + " " + given + ": not a language of this model; closest: " +
                   join(matches, " ") + " (s2s info lists all " + std::to_string(tokens.size()) +
                   ")");
}

LanguageTokens languages_in_vocabulary(const std::vector<std::string>& tokens,
                                       const std::function<bool(const std::string&)>& is_text_piece) {
  const std::unordered_set<std::string> nllb(nllb_language_codes().begin(), nllb_language_codes().end());
  const std::unordered_set<std::string> m2m100(m2m100_language_codes().begin(),
                                               m2m100_language_codes().end());
  bool nllb_found = false, m2m100_found = false;
  for (const std::string& token : tokens) {
    nllb_found = nllb_found || nllb.count(token) != 0;
    m2m100_found = m2m100_found ||
                   (m2m100_shaped(token) && m2m100.count(token.substr(2, token.size() - 4)) != 0);
  }
  LanguageTokens languages;
  languages.family = nllb_found ? LanguageFamily::nllb : LanguageFamily::m2m100;
  if (!nllb_found && !m2m100_found) return languages;
  for (const std::string& token : tokens)
    if ((nllb_found ? nllb_shaped(token) : m2m100_shaped(token)) && !is_text_piece(token))
      languages.tokens.push_back(token);
  return languages;
}

}  // namespace s2s::text
